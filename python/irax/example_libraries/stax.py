"""Stax, a tiny neural-network library of (init_fun, apply_fun) pairs
(``jax.example_libraries.stax``'s names and behaviour).

With ``from irax.example_libraries import stax``::

    init_fun, apply_fun = stax.serial(stax.Conv(8, (3, 3), padding="SAME"), stax.Relu,
                                      stax.MaxPool((2, 2), strides=(2, 2)), stax.Flatten,
                                      stax.Dense(10), stax.LogSoftmax)
    out_shape, params = init_fun(irax.random.PRNGKey(0), (-1, 28, 28, 1))
    logits = apply_fun(params, images)           # (batch, 10)

A layer is a pair of functions: ``init_fun(rng, input_shape) -> (output_shape, params)``
and ``apply_fun(params, inputs, **kwargs) -> outputs`` (``rng=`` is passed on to the
layers that need one, as Dropout). Combinators (``serial``, ``parallel``,
``shape_dependent``) build layers out of layers. Like JAX's, this is an example library:
for real models use a fuller one.
"""

from __future__ import annotations

import functools
import math

from irax import lax, random
from irax import numpy as jnp
from irax.nn import (  # noqa: F401 - stax re-exports these
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from irax.nn.initializers import glorot_normal, normal, ones, zeros

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

__all__ = [
    "AvgPool", "BatchNorm", "Conv", "Conv1DTranspose", "ConvTranspose", "Dense", "Dropout",
    "Elu", "Exp", "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv",
    "GeneralConvTranspose", "Identity", "LeakyRelu", "LogSoftmax", "MaxPool", "Relu",
    "Selu", "Sigmoid", "Softmax", "Softplus", "SumPool", "Tanh", "elementwise", "parallel",
    "serial", "shape_dependent", "glorot", "glorot_normal", "normal", "ones", "randn",
    "zeros", "logsoftmax",
]


def _no_params(rng, input_shape):
    return input_shape, ()


# -- layers with parameters -------------------------------------------------------------


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):  # noqa: N802, N803
    """A fully-connected layer ``inputs @ W + b`` with ``W: (in, out_dim)``, ``b: (out_dim,)``.

        init_fun, apply_fun = Dense(10)
        (None, 10), (W, b) = init_fun(key, (None, 784))
    """
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        W = W_init(k1, (input_shape[-1], out_dim))  # noqa: N806
        return tuple(input_shape[:-1]) + (out_dim,), (W, b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params  # noqa: N806
        return jnp.dot(inputs, W) + b

    return init_fun, apply_fun


def _kernel_shape(lhs_spec, rhs_spec, out_chan, filter_shape, input_shape):
    """The kernel's shape in ``rhs_spec`` order: 'O' out_chan, 'I' the input's channels,
    the spatial letters the filter's sizes in order."""
    spatial = iter(filter_shape)
    return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
            else next(spatial) for c in rhs_spec]


def _conv_layer(name, dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                b_init, shape_of, apply_conv):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if len(filter_shape) != len(rhs_spec) - 2:
        raise ValueError(f"irax.example_libraries.stax.{name}: expected a filter_shape of "
                         f"{len(rhs_spec) - 2} spatial sizes for {rhs_spec!r}, got "
                         f"{tuple(filter_shape)}")
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))  # noqa: N806

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(lhs_spec, rhs_spec, out_chan, filter_shape, input_shape)
        output_shape = shape_of(input_shape, kernel_shape, strides, padding,
                                dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params  # noqa: N806
        return apply_conv(inputs, W, strides, padding) + b

    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None,  # noqa: N802
                padding="VALID", W_init=None, b_init=normal(1e-6)):  # noqa: N803
    """A convolution layer with bias; ``dimension_numbers`` is ``(lhs_spec, rhs_spec,
    out_spec)``, e.g. ``('NHWC', 'HWIO', 'NHWC')`` (``Conv``'s).

        init_fun, apply_fun = GeneralConv(('NCHW', 'OIHW', 'NCHW'), 16, (3, 3))
    """
    one = (1,) * len(filter_shape)

    def conv(x, W, strides, padding):  # noqa: N803
        return lax.conv_general_dilated(x, W, strides, padding, one, one,
                                        dimension_numbers=dimension_numbers)

    return _conv_layer("GeneralConv", dimension_numbers, out_chan, filter_shape, strides,
                       padding, W_init, b_init, lax.conv_general_shape_tuple, conv)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,  # noqa: N802
                         padding="VALID", W_init=None, b_init=normal(1e-6)):  # noqa: N803
    """A transposed (fractionally strided) convolution layer with bias
    (``lax.conv_transpose``); ``dimension_numbers`` as for ``GeneralConv``.

        init_fun, apply_fun = ConvTranspose(8, (3, 3), strides=(2, 2), padding="SAME")
    """
    def conv(x, W, strides, padding):  # noqa: N803
        return lax.conv_transpose(x, W, strides, padding, dimension_numbers=dimension_numbers)

    return _conv_layer("GeneralConvTranspose", dimension_numbers, out_chan, filter_shape,
                       strides, padding, W_init, b_init, lax.conv_transpose_shape_tuple, conv)


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,  # noqa: N802
              beta_init=zeros, gamma_init=ones):
    """Normalizes over ``axis`` (batch statistics), then ``gamma * z + beta`` with
    ``beta``, ``gamma`` of the other axes' shape (``()`` when not ``center``/``scale``).

        init_fun, apply_fun = BatchNorm(axis=0)       # for (batch, features) inputs
    """
    axis = (axis,) if jnp.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[expand] * z
        return z + beta[expand] if center else z

    return init_fun, apply_fun


# -- elementwise layers -----------------------------------------------------------------


def elementwise(fun, **fun_kwargs):
    """A parameter-free layer applying ``fun(inputs, **fun_kwargs)``.

        Swish = elementwise(irax.nn.silu)
    """
    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)

    return _no_params, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


# -- pooling ----------------------------------------------------------------------------


def _with_unit_axes(sizes, non_spatial_axes):
    sizes = tuple(sizes)
    for i in sorted(non_spatial_axes):
        sizes = sizes[:i] + (1,) + sizes[i:]
    return sizes


def _non_spatial(spec, ndim):
    return (0, ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))


def _pooling_layer(name, reducer, init_val, average=False):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):  # noqa: N802
        window_shape = tuple(window_shape)
        strides = tuple(strides or (1,) * len(window_shape))
        if len(strides) != len(window_shape):
            raise ValueError(f"irax.example_libraries.stax.{name}: expected strides of "
                             f"length {len(window_shape)} (the window's), got {strides}")
        non_spatial = _non_spatial(spec, len(window_shape) + 2)
        dims = _with_unit_axes(window_shape, non_spatial)
        steps = _with_unit_axes(strides, non_spatial)

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, dims, steps, padding)
            unit = (1,) * len(dims)
            return lax.reduce_window_shape_tuple(input_shape, dims, steps, pads, unit,
                                                 unit), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, dims, steps, padding)
            if not average:
                return out
            # each output divided by the number of (unpadded) inputs in its window
            axes = _non_spatial(spec, inputs.ndim)
            spatial = tuple(d for i, d in enumerate(inputs.shape) if i not in axes)
            counts = lax.reduce_window(jnp.ones(spatial, inputs.dtype), 0.0, lax.add,
                                       window_shape, strides, padding)
            return out / jnp.expand_dims(counts, tuple(sorted(axes)))

        return init_fun, apply_fun

    PoolingLayer.__name__ = PoolingLayer.__qualname__ = name
    PoolingLayer.__doc__ = (f"A {name} layer over ``window_shape`` (the spatial axes: all "
                            f"but N and C of ``spec``, default NHWC-like); ``padding`` "
                            f"'VALID' or 'SAME'.\n\n        init_fun, apply_fun = "
                            f"{name}((2, 2), strides=(2, 2))\n    ")
    return PoolingLayer


MaxPool = _pooling_layer("MaxPool", lax.max, -jnp.inf)
SumPool = _pooling_layer("SumPool", lax.add, 0.0)
AvgPool = _pooling_layer("AvgPool", lax.add, 0.0, average=True)


# -- shape and plumbing -----------------------------------------------------------------


def _flatten():
    """Flattens all but the leading (batch) dimension."""
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


Flatten = _flatten()


def _identity():
    """Returns its input unchanged."""
    return _no_params, lambda params, inputs, **kwargs: inputs


Identity = _identity()


def FanOut(num):  # noqa: N802
    """Copies its input into a list of ``num`` (for ``parallel``).

        serial(FanOut(2), parallel(Dense(4), Identity), FanInSum)
    """
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    return init_fun, lambda params, inputs, **kwargs: [inputs] * num


def _fan_in_sum():
    """Sums a list of inputs."""
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    return init_fun, lambda params, inputs, **kwargs: sum(inputs)


FanInSum = _fan_in_sum()


def FanInConcat(axis=-1):  # noqa: N802
    """Concatenates a list of inputs along ``axis``.

        serial(FanOut(2), parallel(Dense(4), Dense(3)), FanInConcat())   # 7 features
    """
    def init_fun(rng, input_shape):
        first = tuple(input_shape[0])
        ax = axis % len(first)
        size = sum(shape[ax] for shape in input_shape)
        return first[:ax] + (size,) + first[ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate, mode="train"):  # noqa: N802
    """Dropout that *keeps* each input with probability ``rate`` (scaled by ``1/rate``), in
    ``mode='train'``; the identity otherwise. ``apply_fun`` needs ``rng=key``.

        init_fun, apply_fun = Dropout(0.9)
        y = apply_fun((), x, rng=irax.random.PRNGKey(0))
    """
    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError("irax.example_libraries.stax.Dropout: expected apply_fun to be "
                             "called with a PRNG key, as apply_fun(params, inputs, rng=key) "
                             "(e.g. irax.random.PRNGKey(0)), got rng=None")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)

    return _no_params, apply_fun


# -- combinators ------------------------------------------------------------------------


def _split_or_none(rng, n):
    return random.split(rng, n) if rng is not None else (None,) * n


def serial(*layers):
    """The layers one after another; each gets its own key split from ``rng``.

        init_fun, apply_fun = serial(Dense(64), Relu, Dense(10))
    """
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rngs = _split_or_none(kwargs.pop("rng", None), len(apply_funs))
        for fun, param, rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers):
    """The layers side by side: a sequence of inputs in, one output per layer out (with
    ``FanOut`` and ``FanInSum``/``FanInConcat``).

        init_fun, apply_fun = parallel(Dense(3), Identity)
    """
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        if len(input_shape) != len(init_funs):
            raise ValueError(f"irax.example_libraries.stax.parallel: expected "
                             f"{len(init_funs)} input shapes (one per layer), got "
                             f"{len(input_shape)}")
        rngs = random.split(rng, len(init_funs))
        pairs = [init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)]
        return tuple(s for s, _ in pairs), tuple(p for _, p in pairs)

    def apply_fun(params, inputs, **kwargs):
        rngs = _split_or_none(kwargs.pop("rng", None), len(apply_funs))
        return [f(p, x, rng=r, **kwargs)
                for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by ``make_layer(input_shape)`` once the input's shape is known.

        Project = shape_dependent(lambda shape: Dense(shape[-1]))
    """
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
