"""Gaussian kernel density estimation (``jax.scipy.stats.gaussian_kde``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irax import numpy as jnp
from irax import random
from irax.core import dtypes
from irax.core.tree_util import register_pytree_node_class
from irax.numpy import _util as U
from irax.scipy import linalg
from irax.scipy.stats import _special as S


def _dtype(x):
    return U.aval_of(x).dtype


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:  # noqa: N801 - JAX's name
    """A Gaussian kernel density estimate of ``dataset`` (``(d, n)``: n points in d
    dimensions), bandwidth "scott", "silverman", a scalar or a callable, optional
    ``weights`` (``jax.scipy.stats.gaussian_kde``)."""

    neff: object
    dataset: object
    weights: object
    covariance: object
    inv_cov: object

    def __init__(self, dataset, bw_method=None, weights=None):
        U.check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dtypes.is_complex(_dtype(dataset)):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            U.check_arraylike("gaussian_kde", weights)
            dataset, weights = U.promote_dtypes_inexact(dataset, jnp.asarray(weights))
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (dataset,) = U.promote_dtypes_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=_dtype(dataset))
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / jnp.sum(weights ** 2))
        factor = self._factor("scott" if bw_method is None else bw_method, neff, d)
        cov = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self._set("covariance", cov * factor ** 2)
        self._set("inv_cov", jnp.linalg.inv(cov) / factor ** 2)

    def _factor(self, bw_method, neff, d):
        if isinstance(bw_method, str) and bw_method == "scott":
            return jnp.power(neff, -1.0 / (d + 4))
        if isinstance(bw_method, str) and bw_method == "silverman":
            return jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        if jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            return bw_method
        if callable(bw_method):
            return bw_method(self)
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

    def _set(self, name, value):
        object.__setattr__(self, name, value)
        return value

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        del aux_data
        kde = cls.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"),
                               children):
            kde._set(name, value)
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The estimated density at ``points`` (``(d, m)``)."""
        U.check_arraylike("evaluate", points)
        return _kernel_eval(False, self.dataset.T, self.weights, self._points(points).T,
                            self.inv_cov)

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """The estimated density at ``x``."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log of the estimated density at ``x``."""
        U.check_arraylike("logpdf", x)
        return _kernel_eval(True, self.dataset.T, self.weights, self._points(x).T,
                            self.inv_cov)

    def integrate_gaussian(self, mean, cov):
        """The integral of the estimate times a Gaussian of ``mean`` and ``cov``."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = linalg.cho_factor(self.covariance + cov)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        return _convolve(chol, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low, high):
        """The integral of a 1-D estimate between ``low`` and ``high``."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (S.ndtr(high) - S.ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of two estimates."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = linalg.cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        sm, lg = (self, other) if self.n < other.n else (other, self)
        result = jnp.stack([_convolve(chol, norm, lg.dataset, lg.weights, sm.dataset[:, i])
                            for i in range(sm.n)])
        return jnp.sum(result * sm.weights)

    def resample(self, key, shape=()):
        """``shape`` samples of the estimate (``(d,) + shape``)."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(eps_key, jnp.zeros(self.d, _dtype(self.covariance)),
                                         self.covariance, shape=shape,
                                         dtype=_dtype(self.dataset)).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not supported (as JAX): use ``integrate_box_1d``."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not supported (as JAX)."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _points(self, points):
        if dtypes.is_complex(_dtype(jnp.asarray(points))):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    alpha = linalg.cho_solve(chol, diff)
    arg = 0.5 * jnp.sum(diff * alpha, axis=0)
    return norm * jnp.sum(jnp.exp(-arg) * weights)


def _kernel_eval(in_log: bool, points, weights, xi, precision):
    """The kernel sum at each row of ``xi`` over the rows of ``points``."""
    points, weights, xi, precision = U.promote_dtypes_inexact(points, weights, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = linalg.cholesky(precision, lower=True)
    points = jnp.dot(points, whitening)
    xi = jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)
    arg = log_norm - 0.5 * jnp.sum(jnp.square(points[None, :, :] - xi[:, None, :]), axis=-1)
    if in_log:
        return S.logsumexp(jnp.log(weights)[None, :] + arg, axis=1)
    return jnp.sum(weights[None, :] * jnp.exp(arg), axis=1)
