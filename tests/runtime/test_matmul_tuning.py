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
from irax.runtime import cache, compiler

_BATCHED = "batching_dims = [0] x [0], contracting_dims = [2] x [1]"
#: product name -> (lhs type, rhs type, dimension numbers, result type)
PRODUCTS = {
    "ab": ("128x512", "512x256", "contracting_dims = [1] x [0]", "128x256"),
    "atb": ("512x96", "512x256", "contracting_dims = [0] x [0]", "96x256"),
    "batched": ("8x128x128", "8x128x64", _BATCHED, "8x128x64"),
    "abt": ("128x512", "256x512", "contracting_dims = [1] x [1]", "128x256"),
    "narrow": ("128x512", "512x10", "contracting_dims = [1] x [0]", "128x10"),
    "short": ("32x512", "512x256", "contracting_dims = [1] x [0]", "32x256"),
}
#: products whose rows or columns are no multiple of 64 (the MLP's first weight gradient)
ODD_PRODUCTS = {
    "odd_ab": ("784x128", "128x200", "contracting_dims = [1] x [0]", "784x200"),
    "odd_atb": ("128x784", "128x512", "contracting_dims = [0] x [0]", "784x512"),
    "odd_batched": ("4x100x64", "4x64x200", _BATCHED, "4x100x200"),
    "odd_prime": ("131x64", "64x512", "contracting_dims = [1] x [0]", "131x512"),
}


def _module(products) -> str:
    funcs = []
    for name, (a, b, dims, out) in products.items():
        funcs.append(textwrap.dedent(f"""\
            func.func @{name}(%a: tensor<{a}xf32>, %b: tensor<{b}xf32>) -> tensor<{out}xf32> {{
              %0 = stablehlo.dot_general %a, %b, {dims}
                : (tensor<{a}xf32>, tensor<{b}xf32>) -> tensor<{out}xf32>
              return %0 : tensor<{out}xf32>
            }}"""))
    return "module {\n" + "\n".join(funcs) + "\n}\n"


def _configs(tmp_path, products, flags) -> dict[str, dict[str, str]]:
    """Function name -> the tiling levels IREE configured its product with (read from
    ``--iree-hal-dump-executable-benchmarks-to``), for ``products`` compiled with
    ``flags``."""
    from iree.compiler.tools import binaries

    src = tmp_path / "products.mlir"
    src.write_text(_module(products))
    dump = tmp_path / "dump"
    flags = compiler.Target(cpu="host").flags() + tuple(flags)
    subprocess.run([binaries.find_tool("iree-compile"), *flags, *compiler.GLOBAL_FLAGS,
                    f"--iree-hal-dump-executable-benchmarks-to={dump}", str(src),
                    "-o", str(tmp_path / "out.vmfb")], check=True, capture_output=True)
    configs = {}
    for path in glob.glob(str(dump / "*.mlir")):
        text = open(path).read()
        name = re.search(r"func\.func @(\w+)_dispatch_\d+_", text).group(1)
        found = re.search(r"linalg\.(?:batch_)?matmul[^\n]*lowering_config<([^>]*)>", text)
        configs[name] = dict(re.findall(r"(\w+) = \[([0-9, ]+)\]", found.group(1)))
    assert set(configs) == set(products), configs
    return configs


def test_the_spec_tiles_large_products_with_a_row_major_right_operand(tmp_path):
    """A @ B, A.T @ B and batched A @ B of at least 48 rows and 64 columns get the spec's
    6x16 tiles in 64x64 blocks, and its reduction in steps of 64; A @ B.T, a 10-column and
    a 32-row product keep IREE's own."""
    configs = _configs(tmp_path, PRODUCTS, compiler.AVX2_TUNING_FLAGS)
    tiles = {name: c.get("vector_common_parallel") for name, c in configs.items()}
    assert tiles["ab"] == tiles["atb"] == "6, 16, 0", configs
    assert tiles["batched"] == "1, 6, 16, 0", configs
    for name in ("ab", "atb"):
        assert configs[name]["distribution"] == "64, 64, 0", configs
        assert configs[name]["cache_reduction"] == "0, 0, 64", configs
    assert configs["batched"]["cache_reduction"] == "0, 0, 0, 64", configs
    for name in ("abt", "narrow", "short"):
        assert tiles[name] != "6, 16, 0", (name, configs)


def test_a_programs_spec_configures_its_products_by_their_shapes(tmp_path):
    """A program's own spec (``avx2_tuning_flags`` of its products' shapes): rows and
    columns that are no multiple of 64 get blocks that divide them (784 = 14 x 56 rows,
    200 = 4 x 50 columns, 100 rows in one block; 131 rows have no divisor in [32, 128]
    and keep 64), and products whose right operand (depth x columns) is at most
    ``STEPS_ABOVE`` floats reduce in one go; the others keep the generic configuration."""
    from irax.runtime import avx2_tiles

    assert [avx2_tiles.block(n) for n in (512, 784, 200, 100, 131, 1000, 48)] == \
        [64, 56, 50, 100, 64, 50, 48]
    assert avx2_tiles.configuration(128, 512, 512) == (64, 64, True)
    assert avx2_tiles.configuration(256, 256, 256) == (64, 64, False)
    assert avx2_tiles.configuration(784, 512, 128) == (56, 64, False)
    shapes = [(784, 200, 128, False), (784, 512, 128, False), (100, 200, 64, True),
              (131, 512, 64, False), (256, 256, 256, False),
              (784, 512, 64, False),       # another depth: a matcher of its own
              (128, 256, 512, False), (128, 64, 2048, True)]      # generic
    flags = compiler.avx2_tuning_flags(shapes)
    names = re.findall(r"named_sequence (@\w+)", open(compiler.tuning_spec(flags)).read())
    assert len(names) == len(set(names)), names
    assert {"@match_atb_784x512x128", "@match_atb_784x512x64"} <= set(names), names
    assert compiler.tuning_spec(flags) != compiler.AVX2_MATMUL_TUNING
    assert compiler.tuning_spec(flags) == compiler.tuning_spec(
        compiler.avx2_tuning_flags(reversed(shapes)))      # named by content
    assert compiler.tuning_spec(compiler.avx2_tuning_flags(shapes[-2:])) == \
        compiler.AVX2_MATMUL_TUNING
    # products below the spec's @large (48 rows, 64 columns) are IREE's: no matcher
    assert compiler.tuning_spec(compiler.avx2_tuning_flags(
        [(47, 200, 128, False), (100, 63, 128, True)])) == compiler.AVX2_MATMUL_TUNING
    assert compiler.tuning_spec(compiler.avx2_tuning_flags([(48, 200, 128, False)])) != \
        compiler.AVX2_MATMUL_TUNING
    # written beside the persistent cache, or elsewhere when that cannot be written to
    if cache.cache_dir() is not None:
        assert compiler.tuning_spec(flags).startswith(os.path.join(str(cache.cache_dir()), ""))
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    old = config.irax_compilation_cache_dir
    config.update("irax_compilation_cache_dir", str(blocked))
    try:
        elsewhere = compiler.tuning_spec(compiler.avx2_tuning_flags(shapes))
    finally:
        config.update("irax_compilation_cache_dir", old)
    assert open(elsewhere).read() == open(compiler.tuning_spec(flags)).read()
    assert not elsewhere.startswith(str(tmp_path))
    # written whole (a temporary file renamed): nothing else left in this process's folder
    assert all(name.endswith(".mlir") for name in os.listdir(os.path.dirname(elsewhere)))
    products = {**ODD_PRODUCTS, "ab": PRODUCTS["ab"],
                "small": ("256x256", "256x256", "contracting_dims = [1] x [0]", "256x256")}
    configs = _configs(tmp_path, products, flags)
    blocks = {name: c.get("distribution") for name, c in configs.items()}
    assert blocks == {"odd_ab": "56, 50, 0", "odd_atb": "56, 64, 0",
                      "odd_batched": "1, 100, 50, 0", "odd_prime": "64, 64, 0",
                      "ab": "64, 64, 0", "small": "64, 64, 0"}, configs
    steps = {name: c.get("cache_reduction") for name, c in configs.items()}
    assert steps == {"odd_ab": None, "odd_atb": None, "odd_batched": None, "odd_prime": None,
                     "ab": "0, 0, 64", "small": None}, configs
    assert all(c["vector_common_parallel"].endswith("6, 16, 0") for c in configs.values())


@pytest.mark.parametrize("tuning", [True, False])
def test_products_in_tiles_their_sizes_do_not_divide_match_numpy(tuning):
    """Row and column counts that are no multiple of 6 or 16, reductions no multiple of 64
    (peeled remainders), each
    layout, one program (one compilation, in an ``iree-compile`` process of its own with
    the spec); with the spec where this CPU takes it, and with data tiling instead."""
    old = config.irax_cpu_matmul_tuning, config.irax_cpu_data_tiling_min_flops
    config.update("irax_cpu_matmul_tuning", tuning)
    config.update("irax_cpu_data_tiling_min_flops", 0)   # this small program counts as large
    try:
        rng = np.random.default_rng(11)
        shapes = [(50, 70, 33), (131, 67, 129), (48, 64, 1), (97, 200, 64), (64, 100, 7),
                  (60, 96, 1000)]
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
        assert (compiler.tuning_spec(flags) is not None) == (
            tuning and compiler.avx2_matmul_tiles()), flags
        if compiler.tuning_spec(flags) is not None:      # blocks dividing the odd shapes
            assert compiler.tuning_spec(flags) != compiler.AVX2_MATMUL_TUNING
        # batched, 50 and 100 rows (blocks of all of them), 70 columns
        a3, b3 = (rng.standard_normal(s).astype(np.float32) for s in ((4, 100, 33), (4, 33, 70)))
        g = irax.jit(lambda a, b: (irax.numpy.matmul(a, b), irax.numpy.matmul(a[:, :50], b)))
        for got3, rows in zip(g(a3, b3), (100, 50)):
            want = np.matmul(a3[:, :rows].astype(np.float64), b3.astype(np.float64))
            np.testing.assert_allclose(np.asarray(got3), want, rtol=1e-4, atol=1e-3)
        for i, (a, b) in enumerate(mats):
            want = a.astype(np.float64) @ b.astype(np.float64)
            tol = dict(rtol=1e-4, atol=1e-4 * np.sqrt(a.shape[1]))
            for j, g in enumerate(got[6 * i:6 * i + 6]):
                np.testing.assert_allclose(np.asarray(g), want + (1.0 if j == 1 else 0.0),
                                           **tol, err_msg=f"{shapes[i]} product {j}")
    finally:
        config.update("irax_cpu_matmul_tuning", old[0])
        config.update("irax_cpu_data_tiling_min_flops", old[1])


def _program(f, *args):
    """The program of ``f(*args)`` (``frontend/compile.py Program``)."""
    from irax.frontend.compile import program_of
    from irax.runtime import devices

    return program_of(f.lower(*args)._entry, devices.default_device(), "f", "")


def _flags(f, *args) -> list[str]:
    """The IREE flags the program of ``f(*args)`` compiles with."""
    return _program(f, *args).info["flags"]


def test_the_spec_is_used_on_avx2_hosts_only_and_keyed_by_content(tmp_path):
    features = compiler.host_cpu_features()
    avx2 = {"avx2", "fma"} <= features and "avx512f" not in features
    host = compiler.Target()
    assert compiler.avx2_matmul_tiles(host) == avx2
    limit, tall = compiler.AVX2_TILES_MAX_EXTENT, compiler.AVX2_TILES_MAX_ROWS
    square = (64, 64, 64, False)
    assert compiler.avx2_matmul_tiles(host, [(4096, limit - 1, 8, False), square]) == avx2
    assert compiler.avx2_matmul_tiles(host, [(tall, 4096, 4096, False)]) == avx2
    assert compiler.avx2_matmul_tiles(host, [(tall + 1, 64, 4096, False), square]) == avx2
    assert not compiler.avx2_matmul_tiles(host, [(tall + 1, limit, 64, False), square])
    assert not compiler.avx2_matmul_tiles(host, [(tall + 1, limit, 64, True)])
    # programs with large contractions only, and then not data-tiled
    rng = np.random.default_rng(0)
    big = rng.standard_normal((256, 256)).astype(np.float32)
    f = irax.jit(lambda a: a @ a @ a)
    flags = _flags(f, big)
    assert (compiler.tuning_spec(flags) is not None) == avx2, flags
    assert bool(set(compiler.DATA_TILING_FLAGS) & set(flags)) == (not avx2), flags
    small = _flags(f, big[:8, :8])
    assert not set(compiler.AVX2_TUNING_FLAGS + compiler.DATA_TILING_FLAGS) & set(small)
    # a product of many rows producing AVX2_TILES_MAX_EXTENT columns keeps data tiling;
    # one of few rows, or reducing over that many, takes the tiles
    n, m = compiler.AVX2_TILES_MAX_EXTENT, compiler.AVX2_TILES_MAX_ROWS + 8
    wide = rng.standard_normal((m, 128)).astype(np.float32), np.ones((128, n), np.float32)
    flags = _flags(irax.jit(lambda a, b: a @ b), *wide)
    assert compiler.tuning_spec(flags) is None
    assert set(compiler.DATA_TILING_FLAGS) <= set(flags)
    flags = _flags(irax.jit(lambda a, b: a @ b), wide[0][:64], np.concatenate([wide[1]] * 4, 1))
    assert (compiler.tuning_spec(flags) is not None) == avx2
    deep = rng.standard_normal((m, n)).astype(np.float32), np.ones((n, 128), np.float32)
    flags = _flags(irax.jit(lambda a, b: a @ b), *deep)
    assert (compiler.tuning_spec(flags) is not None) == avx2
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


def test_a_program_iree_fails_to_compile_with_a_spec_compiles_without_it(tmp_path, caplog):
    """``compile_keyed``'s fallback: a spec IREE rejects (here a broken file) costs a
    warning and a second compilation, not the program."""
    import dataclasses

    a = np.ones((64, 96), np.float32)
    code = _program(irax.jit(lambda a: a @ a.T), a).code
    bad = tmp_path / "broken.mlir"
    bad.write_text("module { this is not a spec }\n")
    target = dataclasses.replace(compiler.Target(cpu="host"), extra=(
        f"--iree-codegen-tuning-spec-path={bad}",) + compiler.AVX2_TUNING_FLAGS[1:])
    key, info = compiler.key_of(code, target)
    before = compiler.fallbacks["tuning_spec"]
    with caplog.at_level("WARNING", logger="irax"):
        vmfb = compiler.compile_keyed(code, key, info, "broken_spec")
    assert compiler.fallbacks["tuning_spec"] == before + 1
    assert vmfb and "broken_spec with the tuning spec" in caplog.text
