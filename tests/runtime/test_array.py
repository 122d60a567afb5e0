"""irax.Array: host/device storage, conversions, repr, devices, lifetimes."""

import gc
import pickle

import ml_dtypes
import numpy as np
import pytest

import irax
from irax.core.abstract import ShapedArray
from irax.runtime.array import Array


def _host(a, weak=False):
    a = np.asarray(a)
    return Array._from_host(a, ShapedArray(a.shape, a.dtype, weak))


def test_repr_like_jax():
    assert repr(_host(np.array([1.0, 2.0], np.float32))) == "Array([1., 2.], dtype=float32)"
    assert repr(_host(np.array([1, 2], np.int32))) == "Array([1, 2], dtype=int32)"
    assert repr(_host(np.array(1.0, np.float32), weak=True)) == \
        "Array(1., dtype=float32, weak_type=True)"
    assert repr(_host(np.array([True]))) == "Array([ True], dtype=bool)"


def test_cannot_construct_directly():
    with pytest.raises(TypeError, match="cannot be constructed directly"):
        Array(np.ones(3))


def test_device_put_round_trip_for_every_dtype():
    for dt in (np.float32, np.int32, np.uint8, np.int8, np.int16, np.uint32, np.bool_,
               np.float16, ml_dtypes.bfloat16, np.complex64):
        x = (np.arange(6) % 2 == 0).astype(dt) if dt == np.bool_ else \
            np.arange(6).astype(dt).reshape(2, 3)
        a = irax.device_put(x)
        assert a.dtype == np.dtype(dt) and a.shape == x.shape
        np.testing.assert_array_equal(np.asarray(a), x)
        assert a.devices() == {irax.devices()[0]}


def test_jit_results_stay_valid_after_function_and_array_die():
    def make():
        f = irax.jit(lambda x: x * x)
        return [np.asarray(f(np.full(1000, float(i), np.float32))) for i in range(3)]

    views = make()
    gc.collect()
    junk = [np.random.rand(1000).astype(np.float32) for _ in range(50)]  # reuse freed memory
    for i, v in enumerate(views):
        np.testing.assert_array_equal(v, np.full(1000, float(i * i), np.float32))
    del junk


def test_host_views_are_read_only():
    a = irax.jit(lambda x: x + x)(np.ones(3, np.float32))
    v = np.asarray(a)
    with pytest.raises(ValueError):
        v[0] = 5.0
    c = np.array(a)  # an explicit copy is writable
    c[0] = 5.0
    assert float(a[0]) == 2.0


def test_scalar_conversions_and_len_iter():
    a = irax.jit(lambda x: x + 1)(np.arange(3, dtype=np.int32))
    assert len(a) == 3
    assert [int(v) for v in a] == [1, 2, 3]
    s = irax.jit(lambda x: x * 2)(np.float32(1.5))
    assert float(s) == 3.0 and s.item() == 3.0 and bool(s) and f"{s:.1f}" == "3.0"
    assert a.tolist() == [1, 2, 3]
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)


def test_pickle_and_dlpack():
    a = irax.device_put(np.arange(4, dtype=np.float32))
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(np.asarray(b), np.arange(4))
    np.testing.assert_array_equal(np.from_dlpack(a), np.arange(4))


def test_zero_size_and_scalar_and_bool_through_jit():
    f = irax.jit(lambda x, s, b: (x * 2, s * 2, b))
    x, s, b = f(np.zeros((0, 3), np.float32), np.float32(2), np.array([True, False]))
    assert x.shape == (0, 3)
    assert float(s) == 4.0
    np.testing.assert_array_equal(b, [True, False])


def test_block_until_ready_and_device_get():
    tree = {"a": irax.device_put(np.ones(2)), "b": [irax.device_put(np.zeros(1))]}
    assert irax.block_until_ready(tree) is tree
    got = irax.device_get(tree)
    assert isinstance(got["a"], np.ndarray)


def test_devices_api():
    devs = irax.devices()
    assert irax.device_count() == len(devs) >= 1
    assert devs[0].platform == "cpu" and repr(devs[0]) == "CpuDevice(id=0)"
    assert irax.default_backend() == "cpu"
    with pytest.raises(RuntimeError, match="unknown backend"):
        irax.devices("tpu")


def test_delete():
    a = irax.device_put(np.ones(2))
    a.delete()
    assert a.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        repr(a)
