"""Known-answer vectors of irax.random (jax 0.10.2's values; checked without jax).

The table is /work/shared/notes/jax-semantics.md section 1.8 (x32, default config, and
legacy mode), plus Random123's Threefry-2x32 known answers. Each vector is checked eagerly
and, all at once, under one ``irax.jit``.
"""

import numpy as np
import pytest

import irax
import irax.random as R
from irax.config import config

KAT = [  # key, counter, output of the Threefry-2x32 block (Random123)
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]

F32 = {"uniform": "%08x", "normal": "%08x"}

VECTORS = {
    # seed -> expected values in partitionable (default) mode
    True: {
        0: dict(key=[0, 0], split=[[1797259609, 2579123966], [928981903, 3453687069]],
                fold_in=[2716826189, 292468403],
                bits=[4070199207, 4202968722, 1427181096, 2012915765],
                bits8=[167, 146, 40, 53], bits16=[20391, 13970, 3624, 43061],
                uniform=[0x3F729A4E, 0x3F7A8436, 0x3EAA221C],
                normal=[0x3FCFB2BD, 0x40019DF0, 0xBEDE0017],
                randint=[9, 0, 2, 3, 1]),
        42: dict(key=[0, 42], split=[[1832780943, 270669613], [64467757, 2916123636]],
                 fold_in=[2547012911, 1371500959],
                 bits=[2098992034, 2919706841, 2646866425, 2409546199],
                 uniform=[0x3EFA3824, 0x3F2E0730, 0x3F1DC3F8],
                 normal=[0xBCE7DF15, 0x3EEF2BE8, 0x3E976661],
                 randint=[4, 4, 1, 9, 9]),
    },
    # legacy (jax_threefry_partitionable=False); floats given as decimals
    False: {
        0: dict(key=[0, 0], split=[[4146024105, 967050713], [2718843009, 1272950319]],
                fold_in=[2716826189, 292468403],
                bits=[4146024105, 967050713, 2718843009, 1272950319],
                uniform=[0.96532142162323, 0.31468164920806885, 0.6330299377441406],
                normal=[1.8160862922668457, -0.4826231598854065, 0.3398890793323517],
                randint=[8, 1, 3, 8, 8]),
        42: dict(key=[0, 42], split=[[2465931498, 3679230171], [255383827, 267815257]],
                 fold_in=[2547012911, 1371500959],
                 uniform=[0.5741443634033203, 0.1001582145690918, 0.059461116790771484],
                 normal=[0.18693546950817108, -1.2806504964828491, -1.559313178062439],
                 randint=[2, 3, 7, 9, 4]),
    },
}

BITS64_KEY0 = [7719171245655871230, 3989946895414531357, 17807037942121513089,
               10597664315880824766]


@pytest.fixture(params=[True, False], ids=["partitionable", "legacy"])
def mode(request):
    old = config.jax_threefry_partitionable
    config.update("jax_threefry_partitionable", request.param)
    try:
        yield request.param
    finally:
        config.update("jax_threefry_partitionable", old)


def _draw(key):
    return dict(split=R.split(key), fold_in=R.fold_in(key, 7), bits=R.bits(key, (4,)),
                bits8=R.bits(key, (4,), np.uint8), bits16=R.bits(key, (4,), np.uint16),
                uniform=R.uniform(key, (3,)), normal=R.normal(key, (3,)),
                randint=R.randint(key, (5,), 0, 10))


def _check(expected, got, exact_floats):
    for name, want in expected.items():
        if name == "key":
            continue
        value = np.asarray(got[name])
        if name in F32 and exact_floats:
            np.testing.assert_array_equal(value.view(np.uint32), np.array(want, np.uint32),
                                          err_msg=name)
        elif name in F32:
            # decimals of float32 values: equal after rounding to float32 (normal: the
            # log1p inside erf_inv may differ by an ulp between NumPy/IREE and XLA)
            np.testing.assert_allclose(value, np.array(want, np.float32), rtol=3e-7,
                                       err_msg=name)
        else:
            np.testing.assert_array_equal(value, np.array(want), err_msg=name)


def test_threefry_known_answers():
    from irax.dialect.random import Threefry2x32, threefry_numpy
    from irax.frontend.trace import bind

    cols = [np.array(c, np.uint32) for c in zip(*[k + x for k, x, _ in KAT])]
    want = [np.array(c, np.uint32) for c in zip(*[y for _, _, y in KAT])]
    for out in (threefry_numpy(*cols), bind(Threefry2x32, *cols),
                irax.jit(lambda *a: bind(Threefry2x32, *a))(*cols)):
        np.testing.assert_array_equal(np.asarray(out[0]), want[0])
        np.testing.assert_array_equal(np.asarray(out[1]), want[1])


@pytest.mark.parametrize("seed", [0, 42])
def test_vectors_eager(mode, seed):
    expected = VECTORS[mode][seed]
    key = R.PRNGKey(seed)
    np.testing.assert_array_equal(np.asarray(key), expected["key"])
    _check(expected, _draw(key), exact_floats=mode)


def test_vectors_under_jit(mode):
    draw_both = irax.jit(lambda k0, k42: (_draw(k0), _draw(k42)))
    got0, got42 = draw_both(R.PRNGKey(0), R.PRNGKey(42))
    _check(VECTORS[mode][0], got0, exact_floats=mode)
    _check(VECTORS[mode][42], got42, exact_floats=mode)


def test_typed_keys_give_the_same_vectors():
    got = _draw(R.key(0))
    np.testing.assert_array_equal(np.asarray(R.key_data(got["split"])),
                                  VECTORS[True][0]["split"])
    _check({k: v for k, v in VECTORS[True][0].items() if k not in ("split", "fold_in")},
           got, exact_floats=True)


def test_bits_uint64_in_x64(x64):
    np.testing.assert_array_equal(np.asarray(R.bits(R.PRNGKey(0), (4,), np.uint64)),
                                  np.array(BITS64_KEY0, np.uint64))
