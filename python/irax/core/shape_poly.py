"""Symbolic dimensions: array sizes known by name, not by value (shape polymorphism).

A ``Dim`` is a polynomial with integer coefficients over named sizes, each at least 1:
``b``, ``2*b``, ``b*n + 1``. It stands in a ``ShapedArray``'s shape where ``jit(f,
abstracted_axes=...)`` or ``export`` left an axis unspecified, and it answers shape
arithmetic the way a Python int would, as far as the answer does not depend on the value:

    >>> b = Dim.symbol("b")
    >>> (b * 3 + 1) - b           # 2*b + 1
    >>> b * 784 // 784 == b        # True
    >>> b >= 1                     # True: every size is at least 1
    >>> b == 3                     # False: a symbol never equals a constant
    >>> int(b)                     # InconclusiveDimensionOperation

Arithmetic that comes out constant returns an ``int``. In IR a symbolic dimension is a
dynamic size, and the type keeps the names as its encoding (``dialect/mlir.py``):

    tensor<?x784xf32, ["b"]>       tensor<?x?xf32, ["b", "2*b + 1"]>
"""

from __future__ import annotations

import re

__all__ = ["Dim", "InconclusiveDimensionOperation", "is_symbolic", "is_static", "parse", "sizes",
           "symbolic_shape", "evaluate", "evaluate_shape", "bind"]


class InconclusiveDimensionOperation(TypeError):
    """A question about a symbolic size whose answer depends on its value (JAX's name)."""


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _mono_key(mono: tuple) -> tuple:
    return (-len(mono), mono)


class Dim:
    """An immutable polynomial over named sizes; ``terms`` maps monomials (sorted tuples
    of names, with repetition for powers; ``()`` the constant) to nonzero coefficients."""

    __slots__ = ("terms", "_hash", "_text")

    def __init__(self, terms: dict):
        self.terms = {m: c for m, c in terms.items() if c}
        self._hash = hash(frozenset(self.terms.items()))
        self._text = None

    @classmethod
    def symbol(cls, name: str) -> Dim:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"expected a dimension name (letters, digits, _), got {name!r}")
        return cls({(name,): 1})

    @staticmethod
    def _make(terms: dict):
        """A ``Dim``, or an ``int`` when only a constant is left."""
        terms = {m: c for m, c in terms.items() if c}
        if not terms:
            return 0
        if set(terms) == {()}:
            return terms[()]
        return Dim(terms)

    # ---- arithmetic ---------------------------------------------------------------------
    @staticmethod
    def _terms_of(x) -> dict | None:
        if isinstance(x, Dim):
            return x.terms
        if isinstance(x, int) or (hasattr(x, "__index__") and not hasattr(x, "shape")):
            try:
                return {(): int(x.__index__() if not isinstance(x, int) else x)}
            except TypeError:
                return None
        if hasattr(x, "dtype") and getattr(x, "shape", None) == () and x.dtype.kind in "iu":
            return {(): int(x)}
        return None

    def __add__(self, other):
        t = self._terms_of(other)
        if t is None:
            return NotImplemented
        out = dict(self.terms)
        for m, c in t.items():
            out[m] = out.get(m, 0) + c
        return self._make(out)

    __radd__ = __add__

    def __neg__(self):
        return self._make({m: -c for m, c in self.terms.items()})

    def __sub__(self, other):
        t = self._terms_of(other)
        if t is None:
            return NotImplemented
        return self + self._make({m: -c for m, c in t.items()})

    def __rsub__(self, other):
        t = self._terms_of(other)
        if t is None:
            return NotImplemented
        return (-self) + self._make(t)

    def __mul__(self, other):
        t = self._terms_of(other)
        if t is None:
            return NotImplemented
        out: dict = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in t.items():
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        return self._make(out)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        q = self._divide(other)
        if q is None:
            raise InconclusiveDimensionOperation(
                f"cannot divide the symbolic dimension {self} by {other}: the quotient is not "
                "a polynomial of the dimension names")
        return q

    def __rfloordiv__(self, other):
        return _inconclusive(f"{other} // {self}")

    def __mod__(self, other):
        return 0 if self._divide(other) is not None else _inconclusive(f"{self} % {other}")

    def __truediv__(self, other):
        q = self._divide(other)
        return q if q is not None else _inconclusive(f"{self} / {other}")

    def _divide(self, other):
        """The exact quotient by an int or a monomial ``Dim``, or None."""
        if isinstance(other, Dim):
            if self == other:
                return 1
            if len(other.terms) != 1:
                return None
            (mono, coeff), = other.terms.items()
            out = {}
            for m, c in self.terms.items():
                rest = list(m)
                for name in mono:
                    if name not in rest:
                        return None
                    rest.remove(name)
                if c % coeff:
                    return None
                out[tuple(rest)] = c // coeff
            return self._make(out)
        t = self._terms_of(other)
        if t is None or set(t) != {()} or t[()] == 0:
            return None
        k = t[()]
        if any(c % k for c in self.terms.values()):
            return None
        return self._make({m: c // k for m, c in self.terms.items()})

    # ---- comparisons (every name is at least 1) -------------------------------------------
    def __eq__(self, other):
        if isinstance(other, Dim):
            return self.terms == other.terms
        if self._terms_of(other) is not None:
            return False
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return self._hash

    def __ge__(self, other):
        return self._compare(other, ">=")

    def __gt__(self, other):
        return self._compare(other, ">")

    def __le__(self, other):
        return self._compare(other, "<=")

    def __lt__(self, other):
        return self._compare(other, "<")

    def _compare(self, other, op: str):
        diff = self - other
        if isinstance(diff, int):
            return {">=": diff >= 0, ">": diff > 0, "<=": diff <= 0, "<": diff < 0}[op]
        if diff is NotImplemented:
            return NotImplemented
        # every name is >= 1: with all name coefficients >= 0 the polynomial is smallest
        # with all names 1 (and grows without bound); with all <= 0 it is largest there
        coeffs = [c for m, c in diff.terms.items() if m]
        at_ones = sum(diff.terms.values())
        if all(c >= 0 for c in coeffs):       # diff >= at_ones
            if at_ones > 0 or (at_ones == 0 and op in (">=", "<")):
                return op in (">=", ">")
        elif all(c <= 0 for c in coeffs):     # diff <= at_ones
            if at_ones < 0 or (at_ones == 0 and op in ("<=", ">")):
                return op in ("<=", "<")
        return _inconclusive(f"{self} {op} {other}")

    # ---- what a Dim refuses -----------------------------------------------------------------
    def __index__(self):
        raise InconclusiveDimensionOperation(
            f"the symbolic dimension {self} has no value while the function is traced; "
            "operations that need a concrete size (a NumPy array of that size, a Python "
            "range, a size used as an index) do not work on it. Use irax.numpy operations "
            "whose shapes follow their inputs (jnp.zeros_like(x), jnp.arange(x.shape[0]) "
            "inside the function), or leave this axis out of abstracted_axes")

    __int__ = __index__

    def __bool__(self):
        return True   # a size is at least 1

    # ---- text -----------------------------------------------------------------------------
    def __str__(self) -> str:
        if self._text is None:
            parts = []
            for m in sorted(self.terms, key=_mono_key):
                c = self.terms[m]
                body = "*".join(m)
                if not m:
                    term = str(abs(c))
                elif abs(c) == 1:
                    term = body
                else:
                    term = f"{abs(c)}*{body}"
                parts.append(("- " if c < 0 else "+ ") + term)
            text = " ".join(parts)
            self._text = text[2:] if text.startswith("+ ") else "-" + text[2:]
        return self._text

    def __repr__(self) -> str:
        return str(self)

    @property
    def symbol_name(self) -> str | None:
        """The name when this is one name alone (``b``, not ``2*b`` or ``b*n``), else None:
        the sizes an argument's axis binds."""
        if len(self.terms) != 1:
            return None
        (mono, coeff), = self.terms.items()
        return mono[0] if len(mono) == 1 and coeff == 1 else None

    @property
    def names(self) -> set[str]:
        return {n for m in self.terms for n in m}

    def evaluate(self, env: dict):
        """The value with every name bound in ``env`` (name -> int or a traced scalar)."""
        total = None
        for m, c in sorted(self.terms.items(), key=lambda mc: _mono_key(mc[0])):
            term = None if c == 1 and m else c
            for name in m:
                term = env[name] if term is None else term * env[name]
            total = term if total is None else total + term
        return total


#: what a symbolic size counts as where a decision needs a number (the thread pool, the
#: rows of a while loop's gradient tape): a typical batch
DYNAMIC_SIZE_ESTIMATE = 128

#: a dynamic size without a name (``tensor<?x3xf32>`` in StableHLO after lowering)
ANONYMOUS = Dim({("?",): 1})


def _inconclusive(what: str):
    raise InconclusiveDimensionOperation(
        f"the result of '{what}' depends on the value of a symbolic dimension")


def is_symbolic(d) -> bool:
    return isinstance(d, Dim)


def sizes(shape) -> tuple:
    """``shape`` as a tuple of ints, symbolic sizes kept (``tuple(int(d) for d in shape)``
    for shapes that may be symbolic)."""
    return tuple(d if type(d) is Dim else int(d) for d in shape)


def is_static(shape) -> bool:
    """Whether every size of ``shape`` is a plain integer."""
    return not any(isinstance(d, Dim) for d in shape)


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


def parse(text: str):
    """A dimension from its text (``"b"``, ``"2*b + 1"``, ``"784"``): a ``Dim`` or an int."""
    terms: list = []
    sign, factors, expect = 1, [], "operand"
    pos = 0
    text = str(text).strip()
    if text == "?":
        return ANONYMOUS
    if not text:
        raise ValueError("expected a dimension expression, got an empty string")
    for m in _TOKEN.finditer(text):
        pos = m.end()
        num, name, other = m.groups()
        if num is None and name is None and other is None:
            break
        if expect == "operand":
            if other == "-" and not factors:
                sign = -sign
                continue
            if num is not None:
                factors.append(int(num))
            elif name is not None:
                factors.append(Dim.symbol(name))
            else:
                raise ValueError(f"cannot parse the dimension expression {text!r}")
            expect = "operator"
            continue
        if other == "*":
            expect = "operand"
        elif other in ("+", "-"):
            terms.append((sign, factors))
            sign, factors, expect = (1 if other == "+" else -1), [], "operand"
        else:
            raise ValueError(f"cannot parse the dimension expression {text!r}")
    if expect == "operand" or pos != len(text):
        raise ValueError(f"cannot parse the dimension expression {text!r}")
    terms.append((sign, factors))
    total = 0
    for s, fs in terms:
        term = s
        for f in fs:
            term = term * f
        total = total + term
    return total


def symbolic_shape(spec) -> tuple:
    """A shape from JAX's spelling ``"b, 784"`` (or a sequence of names and ints)."""
    if isinstance(spec, str):
        items = [s for s in spec.strip().strip("()").split(",") if s.strip()]
        return tuple(parse(s) for s in items)
    return tuple(parse(d) if isinstance(d, str) else d for d in spec)


def estimate(d) -> int:
    """A number standing for size ``d`` where a decision needs one (the thread pool, a
    gradient tape's rows): a symbolic size at every name ``DYNAMIC_SIZE_ESTIMATE``."""
    if type(d) is not Dim:
        return int(d)
    return d.evaluate(dict.fromkeys(d.names, DYNAMIC_SIZE_ESTIMATE))


def evaluate(d, env: dict):
    return d.evaluate(env) if isinstance(d, Dim) else d


def evaluate_shape(shape, env: dict) -> tuple:
    return tuple(evaluate(d, env) for d in shape)


def bind(env: dict, shape, actual, where: str = "") -> None:
    """Binds the names of ``shape`` (symbolic) to the sizes of ``actual`` in ``env``; a
    size that contradicts an earlier binding raises ``ValueError`` naming both places.

    ``env`` maps a name to ``(size, where it was bound)``; a size given by a polynomial
    of several names is checked once its names are bound."""
    for k, (d, n) in enumerate(zip(shape, actual)):
        if not isinstance(d, Dim):
            continue
        here = f"{where} axis {k}" if where else f"axis {k}"
        name = d.symbol_name
        if name is not None:
            old = env.get(name)
            if old is not None and old[0] != n:
                raise ValueError(
                    f"the dimension {name!r} is {old[0]} at {old[1]} but {n} at {here}: "
                    "axes with one name must have one size")
            env.setdefault(name, (int(n), here))
    for k, (d, n) in enumerate(zip(shape, actual)):
        if isinstance(d, Dim) and d.names <= set(env):
            want = d.evaluate({name: v[0] for name, v in env.items()})
            if want != n:
                here = f"{where} axis {k}" if where else f"axis {k}"
                raise ValueError(f"the dimension {d} is {want} (from the sizes bound so far) "
                                 f"but {n} at {here}")
