"""``jax.lax``'s special functions, composed from the primitive ops.

Each function is a composition of lax ops (eager mode runs each op's NumPy rule; jit
compiles the ops) wrapped in ``custom_jvp`` for JAX's derivative rule. The algorithms are
the ones XLA's decompositions use (``chlo`` erf/erfc/lgamma/digamma/zeta/polygamma/
bessel_i1e; JAX's own igamma/betainc/bessel_i0e), so values agree with JAX's to a few ulp.
float16/bfloat16 operands compute in float32 and round back once. The incomplete gamma and
beta functions live in ``_special_igamma.py``.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.compat import partial_support
from irax.lax import _util as U
from irax.lax._elementwise import (
    FLOAT,
    abs,
    add,
    bitwise_and,
    bitwise_or,
    div,
    eq,
    exp,
    floor,
    gt,
    is_finite,
    le,
    log,
    log1p,
    lt,
    mul,
    ne,
    neg,
    pow,
    prepare,
    select,
    sign,
    sqrt,
    sub,
)
from irax.transforms.custom_derivatives import custom_jvp

_LOW = (dtypes.float16, dtypes.bfloat16)


def c(x, v):
    """The constant ``v`` splat to ``x``'s shape and dtype (weak)."""
    return U.full_like(x, v)


def poly(t, coeffs):
    """Horner's rule ``((c0 t + c1) t + c2) ...``."""
    p = c(t, coeffs[0])
    for k in coeffs[1:]:
        p = add(mul(p, t), k)
    return p


def is_f64(x) -> bool:
    return np.dtype(U.aval_of(x).dtype) == np.float64


def upcast(fn):
    """Runs ``fn`` in float32 for float16/bfloat16 operands and converts the result back."""

    def wrapped(*args):
        a = U.aval_of(args[0])
        if a.dtype not in _LOW:
            return fn(*args)
        up = [U.convert(v, dtypes.float32, U.aval_of(v).weak_type) for v in args]
        return U.convert(fn(*up), a.dtype, a.weak_type)

    wrapped.__name__ = fn.__name__
    return wrapped


def public(name, core, nargs=1, prim=None):
    """The public lax function: float operands of one dtype, broadcast, then ``core``
    (errors name ``prim``, JAX's primitive, where it differs from ``name``)."""

    def fn(*args):
        if len(args) != nargs:
            raise TypeError(f"{name}() takes {nargs} positional arguments but {len(args)} "
                            "were given")
        ops = prepare(prim or name, list(args), (FLOAT,))
        out = core(*ops)
        weak = all(U.aval_of(v).weak_type for v in ops)
        return U.convert(out, U.aval_of(out).dtype, weak)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (``jax.lax.{name}``)."
    return fn


# ---- erf, erfc, erf_inv ---------------------------------------------------------------------
# float32 erf: x P(x^2) / Q(x^2) on [-4, 4]
_ERF32_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
            -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
            -1.60960333262415e-02)
_ERF32_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
            -7.37332916720468e-03, -1.42647390514189e-02)
# float64 erf on |x| < 1 (Cephes ndtr.c), erfc beyond
_ERF64_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
            7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF64_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2,
            4.59432382970980127987e3, 2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC64_P = (2.46196981473530512524e-10, 5.64189564831068821338e-1, 7.46321056442269912687e0,
             4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
             9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC64_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1,
             3.54937778887819891062e2, 9.75708501743205489753e2, 1.82390916687909736289e3,
             2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2)
_ERFC64_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
             6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC64_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0,
             1.20489539808096656605e1, 1.70814450747565897222e1, 9.60896809063285878198e0,
             3.36907645100081516050e0)
# float32 erfc for |x| >= 1 (Cephes erfcf): exp(-x^2) / |x| * P(1/x^2)
_ERFC32_P = (2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1,
             -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1,
             3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1)
_ERFC32_R = (-1.047766399936249e1, 1.297719955372516e1, -7.495518717768503e0,
             2.921019019210786e0, -1.015265279202700e0, 4.218463358204948e-1,
             -2.820767439740514e-1, 5.641895067754075e-1)


def _erf32(x):
    xc = select(lt(x, -4.0), c(x, -4.0), select(gt(x, 4.0), c(x, 4.0), x))
    z = mul(xc, xc)
    return div(mul(xc, poly(z, _ERF32_P)), poly(z, _ERF32_Q))


def _erfc64_tail(x):
    """erfc(|x|) for |x| >= 1 (0 once exp(-x^2) underflows)."""
    ax = abs(x)
    axs = select(gt(ax, 30.0), c(x, 30.0), ax)
    near = lt(ax, 8.0)
    num = select(near, poly(axs, _ERFC64_P), poly(axs, _ERFC64_R))
    den = select(near, poly(axs, _ERFC64_Q), poly(axs, _ERFC64_S))
    y = div(mul(exp(neg(mul(axs, axs))), num), den)
    return select(gt(mul(x, x), float(np.log(np.finfo(np.float64).max))), c(x, 0.0), y)


def _erfc32_tail(x):
    ax = abs(x)
    z = exp(neg(mul(x, x)))
    q = div(1.0, ax)
    y = mul(q, q)
    p = select(lt(ax, 2.0), poly(y, _ERFC32_P), poly(y, _ERFC32_R))
    out = mul(mul(z, q), p)
    return select(gt(mul(x, x), float(np.log(np.finfo(np.float32).max))), c(x, 0.0), out)


@upcast
def erf_raw(x):
    if not is_f64(x):
        return _erf32(x)
    z = mul(x, x)
    small = div(mul(x, poly(z, _ERF64_T)), poly(z, _ERF64_U))
    big = sub(1.0, _erfc64_tail(x))
    big = select(lt(x, 0.0), neg(big), big)
    return select(lt(abs(x), 1.0), small, big)


@upcast
def erfc_raw(x):
    tail = _erfc64_tail(x) if is_f64(x) else _erfc32_tail(x)
    tail = select(lt(x, 0.0), sub(2.0, tail), tail)
    return select(lt(abs(x), 1.0), sub(1.0, erf_raw(x)), tail)


# Giles (2010): single precision, w < 5 and w >= 5
_ERFINV32_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                   0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV32_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                   0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
# double precision: w < 6.25, w < 16, w >= 16
_ERFINV64_A = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_ERFINV64_B = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_ERFINV64_C = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


@upcast
def erf_inv_raw(x):
    w = neg(log1p(neg(mul(x, x))))
    if is_f64(x):
        sw = sqrt(w)
        pa = poly(sub(w, 3.125), _ERFINV64_A)
        pb = poly(sub(sw, 3.25), _ERFINV64_B)
        pc = poly(sub(sw, 5.0), _ERFINV64_C)
        p = select(lt(w, 6.25), pa, select(lt(w, 16.0), pb, pc))
    else:
        small = lt(w, 5.0)
        t = select(small, sub(w, 2.5), sub(sqrt(w), 3.0))
        p = select(small, poly(t, _ERFINV32_SMALL), poly(t, _ERFINV32_LARGE))
    edge = eq(abs(x), 1.0)
    return select(edge, mul(x, c(x, np.inf)), mul(p, x))


_TWO_OVER_SQRT_PI = float(2.0 / np.sqrt(np.pi))


@custom_jvp
def _erf(x):
    return erf_raw(x)


@_erf.defjvp
def _erf_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _erf(x), mul(mul(t, exp(neg(mul(x, x)))), _TWO_OVER_SQRT_PI)


@custom_jvp
def _erfc(x):
    return erfc_raw(x)


@_erfc.defjvp
def _erfc_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _erfc(x), mul(mul(t, exp(neg(mul(x, x)))), -_TWO_OVER_SQRT_PI)


@custom_jvp
def _erf_inv(x):
    return erf_inv_raw(x)


@_erf_inv.defjvp
def _erf_inv_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _erf_inv(x)
    return y, mul(mul(t, exp(mul(y, y))), float(np.sqrt(np.pi) / 2.0))


erf = public("erf", _erf)
erfc = public("erfc", _erfc)
erf_inv = public("erf_inv", _erf_inv)


# ---- lgamma, digamma ------------------------------------------------------------------------
# Lanczos approximation, g = 7, n = 9
_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354,
            12.507343278686904814458936853, -0.13857109526572011689554707,
            9.984369578019570859563e-6, 1.50563273514931155834e-7)
_LOG_PI = float(np.log(np.pi))
_HALF_LOG_2PI = float(0.5 * np.log(2 * np.pi))


def sinpi(r):
    """``sin(pi r)`` for ``|r| <= 1/2`` (a Taylor polynomial: lax.sin's general range
    reduction would cost hundreds of ops)."""
    t = mul(r, np.pi)
    n = 11 if is_f64(r) else 7
    coeffs = [(-1.0) ** k / float(np.prod(np.arange(1, 2 * k + 2, dtype=np.float64)))
              for k in reversed(range(n))]
    return mul(t, poly(mul(t, t), coeffs))


def _lanczos_z(x):
    reflect = lt(x, 0.5)
    return reflect, select(reflect, neg(x), sub(x, 1.0))


@upcast
def lgamma_raw(x):
    reflect, z = _lanczos_z(x)
    acc = c(x, _LANCZOS_BASE)
    for i, k in enumerate(_LANCZOS):
        acc = add(acc, div(k, add(z, i + 1.0)))
    half_g = _LANCZOS_G + 0.5
    t = add(z, half_g)
    log_t = add(log1p(div(z, half_g)), float(np.log(half_g)))
    log_y = add(add(mul(sub(add(z, 0.5), div(t, log_t)), log_t), _HALF_LOG_2PI), log(acc))
    ax = abs(x)
    frac = sub(ax, floor(ax))
    frac = select(gt(frac, 0.5), sub(1.0, frac), frac)
    denom = log(sinpi(frac))
    reflection = select(is_finite(denom), sub(sub(_LOG_PI, denom), log_y), neg(denom))
    out = select(reflect, reflection, log_y)
    return select(eq(ax, np.inf), c(x, np.inf), out)


@upcast
def digamma_raw(x):
    reflect, z = _lanczos_z(x)
    num = c(x, 0.0)
    den = c(x, _LANCZOS_BASE)
    for i, k in enumerate(_LANCZOS):
        zi = add(z, i + 1.0)
        num = sub(num, div(k, mul(zi, zi)))
        den = add(den, div(k, zi))
    half_g = _LANCZOS_G + 0.5
    t = add(z, half_g)
    log_t = add(log1p(div(z, half_g)), float(np.log(half_g)))
    y = sub(add(log_t, div(num, den)), div(_LANCZOS_G, t))
    reduced = add(x, abs(floor(add(x, 0.5))))
    cospi = sinpi(sub(0.5, abs(reduced)))
    reflection = sub(y, div(mul(cospi, np.pi), sinpi(reduced)))
    out = select(reflect, reflection, y)
    pole = bitwise_and(le(x, 0.0), eq(x, floor(x)))
    out = select(pole, c(x, np.nan), out)
    return select(eq(x, np.inf), c(x, np.inf), out)


# ---- zeta, polygamma ------------------------------------------------------------------------
# B_2k / (2k)! denominators of the Euler-Maclaurin tail (Cephes zeta.c)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


@upcast
def zeta_raw(x, q):
    """Hurwitz zeta by Euler-Maclaurin summation: 9 terms, then 12 correction terms."""
    mx = neg(x)
    s = pow(q, mx)
    a = q
    b = c(q, 0.0)
    for _ in range(9):
        a = add(a, 1.0)
        b = pow(a, mx)
        s = add(s, b)
    w = a
    s = add(s, div(mul(b, w), sub(x, 1.0)))
    s = sub(s, mul(b, 0.5))
    fac = c(x, 1.0)
    k = 0.0
    for ai in _ZETA_A:
        fac = mul(fac, add(x, k))
        b = div(b, w)
        s = add(s, div(mul(fac, b), ai))
        k += 1.0
        fac = mul(fac, add(x, k))
        b = div(b, w)
        k += 1.0
    neg_int_q = bitwise_and(le(q, 0.0), eq(q, floor(q)))
    x_even = eq(sub(x, mul(floor(mul(x, 0.5)), 2.0)), 0.0)
    out = select(neg_int_q, select(x_even, c(x, np.inf), c(x, np.nan)), s)
    domain = bitwise_or(lt(x, 1.0), bitwise_and(le(q, 0.0), ne(x, floor(x))))
    out = select(domain, c(x, np.nan), out)
    return select(eq(x, 1.0), c(x, np.inf), out)


@upcast
def polygamma_raw(m, x):
    """``psi^(m)(x) = (-1)^(m+1) m! zeta(m + 1, x)`` (digamma at m = 0; NaN for a
    non-integer or negative m)."""
    m1 = add(m, 1.0)
    fact = exp(lgamma_raw(m1))
    sgn = select(eq(sub(m1, mul(floor(mul(m1, 0.5)), 2.0)), 0.0), c(x, 1.0), c(x, -1.0))
    out = mul(mul(sgn, fact), zeta_raw(m1, x))
    out = select(eq(m, 0.0), digamma_raw(x), out)
    bad = bitwise_or(ne(m, floor(m)), lt(m, 0.0))
    return select(bad, c(x, np.nan), out)


@custom_jvp
def _polygamma(m, x):
    return polygamma_raw(m, x)


@_polygamma.defjvp
def _polygamma_jvp(primals, tangents):
    (m, x), (_, tx) = primals, tangents
    return _polygamma(m, x), mul(tx, _polygamma(add(m, 1.0), x))


@custom_jvp
def _digamma(x):
    return digamma_raw(x)


@_digamma.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _digamma(x), mul(t, _polygamma(c(x, 1.0), x))


@custom_jvp
def _lgamma(x):
    return lgamma_raw(x)


@_lgamma.defjvp
def _lgamma_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _lgamma(x), mul(t, _digamma(x))


@custom_jvp
def _zeta(x, q):
    return zeta_raw(x, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
    """d/dq zeta(x, q) = -x zeta(x + 1, q); lax.zeta has no derivative in x (JAX has none at
    all: ``jax.scipy.special.zeta`` differentiates a series instead)."""
    (x, q), (_, tq) = primals, tangents
    return _zeta(x, q), mul(tq, neg(mul(x, _zeta(add(x, 1.0), q))))


lgamma = public("lgamma", _lgamma)
digamma = public("digamma", _digamma)
polygamma = partial_support("the derivative in m is zero (JAX raises an error)")(
    public("polygamma", _polygamma, 2))
zeta = public("zeta", _zeta, 2)


# ---- bessel_i0e, bessel_i1e -----------------------------------------------------------------
_I0E_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17,
          -2.43127984654795469359e-16, 1.71539128555513303061e-15,
          -1.16853328779934516808e-14, 7.67618549860493561688e-14,
          -4.85644678311192946090e-13, 2.95505266312963983461e-12,
          -1.72682629144155570723e-11, 9.67580903537323691224e-11,
          -5.18979560163526290666e-10, 2.65982372468238665035e-9,
          -1.30002500998624804212e-8, 6.04699502254191894932e-8,
          -2.67079385394061173391e-7, 1.11738753912010371815e-6,
          -4.41673835845875056359e-6, 1.64484480707288970893e-5,
          -5.75419501008210370398e-5, 1.88502885095841655729e-4,
          -5.76375574538582365885e-4, 1.63947561694133579842e-3,
          -4.32430999505057594430e-3, 1.05464603945949983183e-2,
          -2.37374148058994688156e-2, 4.93052842396707084878e-2,
          -9.49010970480476444210e-2, 1.71620901522208775349e-1,
          -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0E_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18,
          4.46562142029675999901e-17, 3.46122286769746109310e-17,
          -2.82762398051658348494e-16, -3.42548561967721913462e-16,
          1.77256013305652638360e-15, 3.81168066935262242075e-15,
          -9.55484669882830764870e-15, -4.15056934728722208663e-14,
          1.54008621752140982691e-14, 3.85277838274214270114e-13,
          7.18012445138366623367e-13, -1.79417853150680611778e-12,
          -1.32158118404477131188e-11, -3.14991652796324136454e-11,
          1.18891471078464383424e-11, 4.94060238822496958910e-10,
          3.39623202570838634515e-9, 2.26666899049817806459e-8,
          2.04891858946906374183e-7, 2.89137052083475648297e-6,
          6.88975834691682398426e-5, 3.36911647825569408990e-3,
          8.04490411014108831608e-1)
_I1E_A = (2.77791411276104639959e-18, -2.11142121435816608115e-17,
          1.55363195773620046921e-16, -1.10559694773538630805e-15,
          7.60068429473540693410e-15, -5.04218550472791168711e-14,
          3.22379336594557470981e-13, -1.98397439776494371520e-12,
          1.17361862988909016308e-11, -6.66348972350202774223e-11,
          3.62559028155211703701e-10, -1.88724975172282928790e-9,
          9.38153738649577178388e-9, -4.44505912879632808065e-8,
          2.00329475355213526229e-7, -8.56872026469545474066e-7,
          3.47025130813767847674e-6, -1.32731636560394358279e-5,
          4.78156510755005422638e-5, -1.61760815825896745588e-4,
          5.12285956168575772895e-4, -1.51357245063125314899e-3,
          4.15642294431288815669e-3, -1.05640848946261981558e-2,
          2.47264490306265168283e-2, -5.29459812080949914269e-2,
          1.02643658689847095384e-1, -1.76416518357834055153e-1,
          2.52587186443633654823e-1)
_I1E_B = (7.51729631084210481353e-18, 4.41434832307170791151e-18,
          -4.65030536848935832153e-17, -3.20952592199342395980e-18,
          2.96262899764595013876e-16, 3.30820231092092828324e-16,
          -1.88035477551078244854e-15, -3.81440307243700780478e-15,
          1.04202769841288027642e-14, 4.27244001671195135429e-14,
          -2.10154184277266431302e-14, -4.08355111109219731823e-13,
          -7.19855177624590851209e-13, 2.03562854414708950722e-12,
          1.41258074366137813316e-11, 3.25260358301548823856e-11,
          -1.89749581235054123450e-11, -5.58974346219658380687e-10,
          -3.83538038596423702205e-9, -2.63146884688951950684e-8,
          -2.51223623787020892529e-7, -3.88256480887769039346e-6,
          -1.10588938762623716291e-4, -9.76109749136146840777e-3,
          7.78576235018280120474e-1)


def _chebyshev(x, coeffs):
    b0 = b1 = b2 = c(x, 0.0)
    for k in coeffs:
        b2 = b1
        b1 = b0
        b0 = add(sub(mul(x, b1), b2), k)
    return mul(sub(b0, b2), 0.5)


def _cheb_pair(x, a, b, n_a, n_b):
    """Cephes' two-interval Chebyshev form: |x| <= 8 and beyond (over sqrt|x|)."""
    ax = abs(x)
    if not is_f64(x):
        a, b = a[-n_a:], b[-n_b:]
    small = _chebyshev(sub(mul(ax, 0.5), 2.0), a)
    big = div(_chebyshev(sub(div(32.0, ax), 2.0), b), sqrt(ax))
    return ax, small, big


@upcast
def bessel_i0e_raw(x):
    ax, small, big = _cheb_pair(x, _I0E_A, _I0E_B, 18, 7)
    return select(le(ax, 8.0), small, big)


@upcast
def bessel_i1e_raw(x):
    ax, small, big = _cheb_pair(x, _I1E_A, _I1E_B, 17, 7)
    out = select(le(ax, 8.0), mul(small, ax), big)
    return select(lt(x, 0.0), neg(out), out)


@custom_jvp
def _bessel_i1e(x):
    return bessel_i1e_raw(x)


@_bessel_i1e.defjvp
def _bessel_i1e_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _bessel_i1e(x)
    eps = float(dtypes.finfo(U.aval_of(x).dtype).eps)
    not_tiny = gt(abs(x), eps)
    safe = select(not_tiny, x, c(x, eps))
    d = sub(_bessel_i0e(safe), mul(y, add(sign(safe), div(1.0, safe))))
    return y, mul(t, select(not_tiny, d, c(x, 0.5)))


@custom_jvp
def _bessel_i0e(x):
    return bessel_i0e_raw(x)


@_bessel_i0e.defjvp
def _bessel_i0e_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _bessel_i0e(x)
    return y, mul(t, sub(_bessel_i1e(x), mul(sign(x), y)))


bessel_i0e = public("bessel_i0e", _bessel_i0e)
bessel_i1e = public("bessel_i1e", _bessel_i1e)
