"""The operators and methods of ``irax.Array`` and ``Tracer``, implemented by the
``irax.numpy`` functions of the same meaning and installed on their base class
(``core.array_methods.ArrayMethods``) when ``irax.numpy`` is imported.

    x.sum(axis=0)     # irax.numpy.sum(x, axis=0)
    x @ y             # irax.numpy.matmul(x, y)
"""

from __future__ import annotations

from irax.core.array_methods import install


def _binary(fn, reflected=False):
    if reflected:
        def op(self, other):
            return fn(other, self)
    else:
        def op(self, other):
            return fn(self, other)
    op.__name__ = fn.__name__
    return op


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    return method


def install_array_methods(jnp) -> None:
    """Installs the operators and methods, taken from the ``irax.numpy`` module ``jnp``."""

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return jnp.reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        return jnp.transpose(self, axes or None)

    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "remainder", "pow": "power",
              "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
              "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift"}
    methods = {}
    for dunder, name in binary.items():
        methods[f"__{dunder}__"] = _binary(getattr(jnp, name))
        methods[f"__r{dunder}__"] = _binary(getattr(jnp, name), reflected=True)
    for dunder, name in {"lt": "less", "le": "less_equal", "gt": "greater",
                         "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}.items():
        methods[f"__{dunder}__"] = _binary(getattr(jnp, name))
    for dunder, name in {"neg": "negative", "pos": "positive", "abs": "abs",
                         "invert": "invert"}.items():
        methods[f"__{dunder}__"] = _method(getattr(jnp, name))
    methods["__divmod__"] = _binary(jnp.divmod)
    methods["__rdivmod__"] = _binary(jnp.divmod, reflected=True)
    methods["__getitem__"] = _binary(jnp._index)
    methods["__round__"] = _method(jnp.round)
    methods["T"] = property(lambda self: jnp.transpose(self))
    methods["mT"] = property(lambda self: jnp.swapaxes(self, -1, -2))
    methods["real"] = property(lambda self: jnp.real(self))
    methods["imag"] = property(lambda self: jnp.imag(self))
    methods["reshape"] = reshape
    methods["transpose"] = transpose
    for name in ("astype", "sum", "mean", "max", "min", "prod", "any", "all", "argmax",
                 "argmin", "sort", "argsort", "swapaxes", "squeeze", "ravel", "dot", "clip",
                 "round", "var", "std", "cumsum"):
        methods[name] = _method(getattr(jnp, name))
    methods["flatten"] = _method(jnp.ravel)
    methods["conj"] = methods["conjugate"] = _method(jnp.conjugate)
    install(methods)
