"""Attribute kinds: how an op's Python-level attribute values map to MLIR attributes.

An op declares ``attributes = {"dimensions": I64Array, ...}``. Rules receive the decoded
Python values (tuples of ints, strings, NumPy dtypes, NumPy arrays), so every rule reads
the same whether it runs during tracing, in a pass, or in the interpreter.

    "irax.transpose"(%x) {permutation = array<i64: 1, 0>}   <->   permutation=(1, 0)
"""

from __future__ import annotations

import re

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.dtypes import dtype_from_mlir
from irax.core.shape_poly import Dim, parse
from irax.dialect import mlir


class AttrKind:
    """Converts one attribute between its Python value and its MLIR form."""

    def normalize(self, value):
        return value

    def encode(self, value):
        raise NotImplementedError

    def decode(self, attr):
        raise NotImplementedError

    def decode_from(self, operation, key: str):
        """The Python value of attribute ``key`` of ``operation``."""
        return self.decode(operation.attributes[key])


class _I64Array(AttrKind):
    """Integers: ``array<i64: 2, 3>`` <-> ``(2, 3)``. A shape with symbolic sizes
    (``core/shape_poly.py``) is an array of integers and names: ``["b", 3]``
    reads back as ``(Dim("b"), 3)``."""

    def normalize(self, value):
        return tuple(v if type(v) is Dim else int(v) for v in value)

    def encode(self, value):
        ir = mlir.ir()
        if not any(type(v) is Dim for v in value):
            return ir.DenseI64ArrayAttr.get(list(value), context=mlir.context())
        i64 = ir.IntegerType.get_signless(64, mlir.context())
        return ir.ArrayAttr.get(
            [ir.StringAttr.get(str(v), mlir.context()) if type(v) is Dim
             else ir.IntegerAttr.get(i64, v) for v in value], context=mlir.context())

    def decode(self, attr):
        ir = mlir.ir()
        if attr.typeid != ir.ArrayAttr.static_typeid:
            return tuple(ir.DenseI64ArrayAttr(attr))
        return tuple(parse(ir.StringAttr(a).value) if a.typeid == ir.StringAttr.static_typeid
                     else ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr))


class _I64(AttrKind):
    """An integer: ``length = 3 : i64``; a symbolic size (a scan over a symbolic axis, a
    vmap of one) is its text: ``length = "b"``."""

    def normalize(self, value):
        return value if type(value) is Dim else int(value)

    def encode(self, value):
        ir = mlir.ir()
        if type(value) is Dim:
            return ir.StringAttr.get(str(value), mlir.context())
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64, mlir.context()), value)

    def decode(self, attr):
        ir = mlir.ir()
        if attr.typeid == ir.StringAttr.static_typeid:
            return parse(ir.StringAttr(attr).value)
        return ir.IntegerAttr(attr).value


class _F64(AttrKind):
    def normalize(self, value):
        return float(value)

    def encode(self, value):
        ir = mlir.ir()
        return ir.FloatAttr.get(ir.F64Type.get(mlir.context()), value)

    def decode(self, attr):
        return mlir.ir().FloatAttr(attr).value


class _Bool(AttrKind):
    def normalize(self, value):
        return bool(value)

    def encode(self, value):
        return mlir.ir().BoolAttr.get(value, mlir.context())

    def decode(self, attr):
        return mlir.ir().BoolAttr(attr).value


class _Str(AttrKind):
    def normalize(self, value):
        return str(value)

    def encode(self, value):
        return mlir.ir().StringAttr.get(value, mlir.context())

    def decode(self, attr):
        return mlir.ir().StringAttr(attr).value


class _StrArray(AttrKind):
    """Names: ``mesh_axes = ["x", "y"]`` <-> ``("x", "y")``."""

    def normalize(self, value):
        return tuple(str(v) for v in value)

    def encode(self, value):
        ir = mlir.ir()
        return ir.ArrayAttr.get([ir.StringAttr.get(v, mlir.context()) for v in value],
                                context=mlir.context())

    def decode(self, attr):
        ir = mlir.ir()
        return tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(attr))


class _Sharding(AttrKind):
    """Which mesh axes split each dimension: ``[["x"], [], ["x", "y"]]`` <->
    ``(("x",), (), ("x", "y"))`` (dimension 0 split over ``"x"``, 1 whole, 2 over both)."""

    def normalize(self, value):
        return tuple(tuple(str(a) for a in ((d,) if isinstance(d, str) else d or ()))
                     for d in value)

    def encode(self, value):
        ir = mlir.ir()
        ctx = mlir.context()
        return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.StringAttr.get(a, ctx) for a in d],
                                                  context=ctx) for d in value], context=ctx)

    def decode(self, attr):
        ir = mlir.ir()
        return tuple(tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(d))
                     for d in ir.ArrayAttr(attr))


class _Symbol(AttrKind):
    """A function reference: ``callee = @f``."""

    def normalize(self, value):
        return str(value)

    def encode(self, value):
        return mlir.ir().FlatSymbolRefAttr.get(value, mlir.context())

    def decode(self, attr):
        return mlir.ir().FlatSymbolRefAttr(attr).value


class _DType(AttrKind):
    """An element type: ``new_dtype = f32``."""

    def normalize(self, value):
        return np.dtype(value)

    def encode(self, value):
        return mlir.ir().TypeAttr.get(mlir.element_type(value))

    def decode(self, attr):
        return dtype_from_mlir(str(mlir.ir().TypeAttr(attr).value))


class _TypeList(AttrKind):
    """Tensor types: ``result_types = [tensor<3xf32>, tensor<i32>]`` <-> a tuple of
    ``ShapedArray``."""

    def normalize(self, value):
        return tuple(ShapedArray(tuple(a.shape), np.dtype(a.dtype)) for a in value)

    def encode(self, value):
        ir = mlir.ir()
        return ir.ArrayAttr.get([ir.TypeAttr.get(mlir.to_ir_type(a)) for a in value],
                                context=mlir.context())

    def decode(self, attr):
        ir = mlir.ir()
        return tuple(mlir.aval_of_type(ir.TypeAttr(a).value) for a in ir.ArrayAttr(attr))


# dtypes whose DenseElementsAttr has no buffer view in the bindings: decoded from text.
_BUFFERLESS = ("bfloat16", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2")


class _Dense(AttrKind):
    """A constant tensor: ``value = dense<[1.0, 2.0]> : tensor<2xf32>``."""

    def normalize(self, value):
        return np.asarray(value)

    def encode(self, value):
        ir = mlir.ir()
        t = mlir.to_ir_type(ShapedArray(value.shape, value.dtype))
        if value.size > 1 and value.dtype.kind != "c" and not any(value.strides):
            # a broadcast scalar (jnp.zeros((10**6, 10**6))): a splat, never materialized
            one = np.asarray(value[(0,) * value.ndim]).reshape(1)
            return ir.DenseElementsAttr.get(one, type=t, context=mlir.context())
        data = np.asarray(value, order="C")
        if data.dtype.kind == "c":
            part = np.float32 if data.dtype == np.complex64 else np.float64
            data = data.reshape(-1).view(part).reshape(*data.shape, 2) if data.size else data
        if data.size > 1 and np.all(data.reshape(-1)[:1] == data.reshape(-1)) \
                and value.dtype.kind != "c":
            data = data.reshape(-1)[:1]  # a splat: one element
        return ir.DenseElementsAttr.get(data, type=t, context=mlir.context())

    def decode_from(self, operation, key: str):
        # Reading a complex-valued dense attribute through the bindings aborts the process;
        # constants of complex type are parsed from the op's text instead (a large splat
        # prints as its one element).
        result = operation.results[0].type if len(operation.results) == 1 else None
        aval = mlir.aval_of_type(result) if result is not None else None
        if aval is None or aval.dtype.kind != "c":
            return self.decode(operation.attributes[key])
        text = operation.get_asm(print_generic_op_form=True)
        start = text.index(f"{key} = dense<") + len(f"{key} = dense<")
        body = text[start:text.index("> : tensor<", start)]
        if body.startswith('"0x'):  # a large constant prints as the hex of its raw bytes
            data = bytes.fromhex(body[3:-1])
            return np.frombuffer(data, aval.dtype).reshape(aval.shape).copy()
        return _parse_dense_text(f"dense<{body}> : x", aval.shape, aval.dtype)

    def decode(self, attr):
        """The attribute's value; a splat is a read-only broadcast of its one element (a
        ``dense<1.0> : tensor<100000x100000xf32>`` costs four bytes, not 37 GiB)."""
        ir = mlir.ir()
        dense = ir.DenseElementsAttr(attr)
        aval = mlir.aval_of_type(dense.type)
        if aval.dtype.name not in _BUFFERLESS:
            try:
                if dense.is_splat and aval.size > 1:
                    one = ir.DenseElementsAttr.get_splat(
                        mlir.to_ir_type(ShapedArray((1,), aval.dtype)),
                        dense.get_splat_value())
                    scalar = np.array(one).astype(aval.dtype, copy=False).reshape(())
                    return np.broadcast_to(scalar, aval.shape)
                return np.array(dense).astype(aval.dtype, copy=False).reshape(aval.shape)
            except TypeError:   # no buffer view either (int4, float8_e4m3, float4_e2m1fn...)
                pass
        return _parse_dense_text(str(dense), aval.shape, dtype_from_mlir(
            str(ir.RankedTensorType(dense.type).element_type)))


_NUM = re.compile(r"0x[0-9A-Fa-f]+|[-+]?(?:inf|nan|\d+\.?\d*(?:[eE][-+]?\d+)?)|true|false")


def _parse_dense_text(text: str, shape, dtype) -> np.ndarray:
    """Parses ``dense<...> : tensor<...>`` printed text (bf16, complex and fp8 constants)."""
    body = text[text.index("<") + 1:text.rindex(">", 0, text.rindex(":"))]
    tokens = _NUM.findall(body)
    if dtype.kind == "c":
        part = np.float32 if dtype == np.complex64 else np.float64
        vals = np.array([_token(t, np.dtype(part)) for t in tokens], dtype=part)
        vals = vals[0::2] + 1j * vals[1::2]
    else:
        vals = np.array([_token(t, dtype) for t in tokens]).astype(dtype)
    if vals.size == 1 and int(np.prod(shape)) != 1:  # a splat: a broadcast, not a copy
        return np.broadcast_to(np.array(vals, dtype=dtype).reshape(()), shape)
    return np.array(vals, dtype=dtype).reshape(shape)


def _token(tok: str, dtype):
    if tok.startswith("0x"):
        bits = int(tok, 16)
        width = dtype.itemsize
        uint = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
        return np.array(bits, dtype=uint).view(dtype).astype(np.float64)
    if tok in ("true", "false"):
        return tok == "true"
    return float(tok)


I64Array = _I64Array()
I64 = _I64()
F64 = _F64()
Bool = _Bool()
Str = _Str()
StrArray = _StrArray()
Sharding = _Sharding()
Symbol = _Symbol()
DType = _DType()
Dense = _Dense()
TypeList = _TypeList()
