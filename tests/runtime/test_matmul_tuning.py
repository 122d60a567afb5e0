"""irax's IREE tuning spec for float32 matrix products on AVX2 CPUs
(``runtime/avx2_matmul_tuning.mlir``; docs/performance.md, "Matrix products in 6x16
tiles"): which products it tiles (read back from IREE's configured dispatches), that
programs using it compute the same products as NumPy at sizes its tiles do not divide,
and how compile-cache keys name it."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import textwrap

import numpy as np
import pytest

import irax
from irax.core.config import config
from irax.runtime import compiler

#: product name -> (lhs type, rhs type, contracting dims, result type)
PRODUCTS = {
    "ab": ("128x512", "512x256", "[1] x [0]", "128x256"),
    "atb": ("512x96", "512x256", "[0] x [0]", "96x256"),
    "abt": ("128x512", "256x512", "[1] x [1]", "128x256"),
    "narrow": ("128x512", "512x10", "[1] x [0]", "128x10"),
    "short": ("32x512", "512x256", "[1] x [0]", "32x256"),
}


def _module() -> str:
    funcs = []
    for name, (a, b, dims, out) in PRODUCTS.items():
        funcs.append(textwrap.dedent(f"""\
            func.func @{name}(%a: tensor<{a}xf32>, %b: tensor<{b}xf32>) -> tensor<{out}xf32> {{
              %0 = stablehlo.dot_general %a, %b, contracting_dims = {dims}
                : (tensor<{a}xf32>, tensor<{b}xf32>) -> tensor<{out}xf32>
              return %0 : tensor<{out}xf32>
            }}"""))
    return "module {\n" + "\n".join(funcs) + "\n}\n"


def test_the_spec_tiles_large_products_with_a_row_major_right_operand(tmp_path):
    """IREE's configured dispatches (``--iree-hal-dump-executable-benchmarks-to``): A @ B
    and A.T @ B of at least 48 rows and 64 columns get the spec's 6x16 tiles; A @ B.T, a
    10-column and a 32-row product keep IREE's own."""
    from iree.compiler.tools import binaries

    src = tmp_path / "products.mlir"
    src.write_text(_module())
    dump = tmp_path / "dump"
    flags = compiler.Target(cpu="host").flags() + compiler.AVX2_TUNING_FLAGS
    subprocess.run([binaries.find_tool("iree-compile"), *flags, *compiler.GLOBAL_FLAGS,
                    f"--iree-hal-dump-executable-benchmarks-to={dump}", str(src),
                    "-o", str(tmp_path / "out.vmfb")], check=True, capture_output=True)
    tiles = {}
    for path in glob.glob(str(dump / "*.mlir")):
        text = open(path).read()
        name = re.search(r"func\.func @(\w+)_dispatch_\d+_", text).group(1)
        found = re.search(r"linalg\.matmul[^\n]*vector_common_parallel = \[([0-9, ]+)\]", text)
        tiles[name] = found.group(1) if found else None
    assert set(tiles) == set(PRODUCTS), tiles
    assert tiles["ab"] == tiles["atb"] == "6, 16, 0", tiles
    for name in ("abt", "narrow", "short"):
        assert tiles[name] != "6, 16, 0", (name, tiles)


@pytest.mark.parametrize("tuning", [True, False])
def test_products_in_tiles_their_sizes_do_not_divide_match_numpy(tuning):
    """Row and column counts that are no multiple of 6 or 16 (peeled remainders), each
    layout, one program (one compilation, in an ``iree-compile`` process of its own with
    the spec); with the spec where this CPU takes it, and with data tiling instead."""
    old = config.irax_cpu_matmul_tuning, config.irax_cpu_data_tiling_min_flops
    config.update("irax_cpu_matmul_tuning", tuning)
    config.update("irax_cpu_data_tiling_min_flops", 0)   # this small program counts as large
    try:
        rng = np.random.default_rng(11)
        shapes = [(50, 70, 33), (131, 67, 129), (48, 64, 1), (97, 200, 64), (64, 100, 7)]
        mats = [(rng.standard_normal((m, k)).astype(np.float32),
                 rng.standard_normal((k, n)).astype(np.float32)) for m, n, k in shapes]

        def products(ms):
            out = []
            for a, b in ms:
                out += [a @ b, a.T.T @ b + 1.0, (a.T).T @ (b.T).T]
                out.append(irax.numpy.transpose(a).T @ b)
                out.append(irax.lax.dot_general(irax.numpy.transpose(a), b,
                                                (((0,), (0,)), ((), ()))))
                out.append(irax.lax.dot_general(a, irax.numpy.transpose(b),
                                                (((1,), (1,)), ((), ()))))
            return out

        f = irax.jit(products)
        got = f(mats)
        flags = _flags(f, mats)
        assert (compiler.AVX2_TUNING_FLAGS[0] in flags) == (
            tuning and compiler.avx2_matmul_tiles()), flags
        for i, (a, b) in enumerate(mats):
            want = a.astype(np.float64) @ b.astype(np.float64)
            tol = dict(rtol=1e-4, atol=1e-4 * np.sqrt(a.shape[1]))
            for j, g in enumerate(got[6 * i:6 * i + 6]):
                np.testing.assert_allclose(np.asarray(g), want + (1.0 if j == 1 else 0.0),
                                           **tol, err_msg=f"{shapes[i]} product {j}")
    finally:
        config.update("irax_cpu_matmul_tuning", old[0])
        config.update("irax_cpu_data_tiling_min_flops", old[1])


def _flags(f, *args) -> list[str]:
    """The IREE flags the program of ``f(*args)`` compiles with."""
    from irax.frontend.compile import program_of
    from irax.runtime import devices

    return program_of(f.lower(*args)._entry, devices.default_device(), "f", "").info["flags"]


def test_the_spec_is_used_on_avx2_hosts_only_and_keyed_by_content(tmp_path):
    features = compiler.host_cpu_features()
    avx2 = {"avx2", "fma"} <= features and "avx512f" not in features
    host = compiler.Target()
    assert compiler.avx2_matmul_tiles(host) == avx2
    limit = compiler.AVX2_TILES_MAX_EXTENT
    assert compiler.avx2_matmul_tiles(host, limit - 1) == avx2
    assert not compiler.avx2_matmul_tiles(host, limit)
    # programs with large contractions only, and then not data-tiled
    rng = np.random.default_rng(0)
    big = rng.standard_normal((256, 256)).astype(np.float32)
    f = irax.jit(lambda a: a @ a @ a)
    flags = _flags(f, big)
    assert (compiler.AVX2_TUNING_FLAGS[0] in flags) == avx2, flags
    assert bool(set(compiler.DATA_TILING_FLAGS) & set(flags)) == (not avx2), flags
    small = _flags(f, big[:8, :8])
    assert not set(compiler.AVX2_TUNING_FLAGS + compiler.DATA_TILING_FLAGS) & set(small)
    # a product reducing over (or producing) AVX2_TILES_MAX_EXTENT columns keeps data tiling
    n = compiler.AVX2_TILES_MAX_EXTENT      # 64 x n x 256 multiply-adds: 2^24 for n = 1024
    long_k = rng.standard_normal((64, n)).astype(np.float32), np.ones((n, 256), np.float32)
    wide_n = rng.standard_normal((64, 256)).astype(np.float32), np.ones((256, n), np.float32)
    for a, b in (long_k, wide_n):
        flags = _flags(irax.jit(lambda a, b: a @ b), a, b)
        assert compiler.AVX2_TUNING_FLAGS[0] not in flags, (a.shape, b.shape)
        assert set(compiler.DATA_TILING_FLAGS) <= set(flags), (a.shape, b.shape)
    # never for another CPU, another backend, or with the option off
    assert not compiler.avx2_matmul_tiles(compiler.Target(triple="aarch64-linux-gnu"))
    assert not compiler.avx2_matmul_tiles(compiler.Target(backend="vmvx"))
    old = config.irax_cpu_matmul_tuning
    config.update("irax_cpu_matmul_tuning", False)
    try:
        assert not compiler.avx2_matmul_tiles(host)
    finally:
        config.update("irax_cpu_matmul_tuning", old)
    # cache keys name the spec by its content, not its path
    spec = tmp_path / "spec.mlir"
    spec.write_text("// one\n")
    keyed = compiler.keyed_flags(("--a", f"--iree-codegen-tuning-spec-path={spec}"))
    assert keyed[0] == "--a" and str(tmp_path) not in keyed[1]
    copy = tmp_path / "copy.mlir"
    copy.write_text("// one\n")
    assert compiler.keyed_flags((f"--iree-codegen-tuning-spec-path={copy}",)) == keyed[1:]
    assert os.path.exists(compiler.AVX2_MATMUL_TUNING)
