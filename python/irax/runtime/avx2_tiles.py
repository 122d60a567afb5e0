"""A program's own tuning spec for the AVX2 6x16 tiles: blocks that divide its products,
and the reduction in steps only where a product's right operand outgrows the cache.

``avx2_matmul_tuning.mlir`` computes the result of a float32 product in 64x64 blocks, one
workgroup each, 64 steps of the reduction at a time. Two of its choices depend on the
product's shape:

* Where a product's rows or columns are no multiple of 64, the last block is partial:
  its size is only known at run time, and IREE 3.13's code for it (peeled, with dynamic
  bounds) is many times slower per element. One thread, the weight gradient of the MLP's
  first layer (``x.T @ g``, 784x128 by 128x512): 1.75 ms with 64-row blocks (the last
  one of 16 rows), 1.30 with blocks of 56 rows (784 = 14 x 56), 1.27 with 112; 768 rows
  take 1.15 ms. Such products get blocks that divide them (``block``).
* The steps keep the rows of the right operand that a block reads in cache when the
  operand (depth x columns floats) is larger than ``STEPS_ABOVE`` (256 KB: half the L2 of
  this machine's cores; a power-of-two row stride leaves only part of it to them). Below,
  they only cost: 256x256 by 256x256 0.350 ms without, 0.365 with (and a 4-device pmap
  of that product 1.92-2.07 ms against 2.13); 128x512 by 512x512 0.99 without, 0.75 with.

``spec_for(products)`` returns the path of a spec that holds, before the generic
matchers, one matcher per product shape (rows, columns, depth) and form (``A @ B``,
``A.T @ B``, batched ``A @ B``) whose configuration differs from the generic one, with
that configuration. The spec of a program without such shapes is the file itself. Specs
are written once, named by their content, next to the persistent compile cache (whose
entries record the path) or, with that cache off, into a temporary directory of this
process:

    transform.named_sequence @match_atb_784x512x128(%op: !transform.any_op ...)
        -> (!transform.any_op, !transform.any_param) {
      transform.include @form_atb failures(propagate) (%op) : (!transform.any_op) -> ()
      %shaped = transform.match.structured failures(propagate) %op ... {
        ... transform.match.param.cmpi eq %m, %m_is ... (784, 512, then 128)
      }
      %info = transform.param.constant #iree_codegen.compilation_info<
          lowering_config = #iree_cpu.lowering_config<
              distribution = [56, 64, 0], cache_parallel = [56, 64, 0], ...
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import re
import shutil
import tempfile
import threading

from irax.runtime import cache

#: the generic spec (the base of every program's own)
AVX2_MATMUL_TUNING = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "avx2_matmul_tuning.mlir")
#: the generic block's extent, and the range of extents a dividing block is taken from
BLOCK, BLOCK_RANGE = 64, (32, 128)
#: the size of a right operand (in floats) above which the reduction goes in steps
STEPS_ABOVE = 64 * 1024
_STEPS = re.compile(r"cache_reduction = \[[0-9, ]+\],\s*")

_SHAPES = "  // @shapes (a program's own matchers go here)\n"
_NAMES = "        // @shape matchers (named here, before the generic ones)\n"
_BLOCKS = {False: "distribution = [64, 64, 0], cache_parallel = [64, 64, 0]",
           True: "distribution = [1, 64, 64, 0], cache_parallel = [1, 64, 64, 0]"}
_lock = threading.Lock()
_temporary: list[str] = []


def block(extent: int) -> int:
    """The block a product's ``extent`` rows (or columns) are split into: 64 when it
    divides them, all of them up to 128, else the divisor in [32, 128] nearest 64 (64
    when there is none: the last block stays partial)."""
    if extent % BLOCK == 0:
        return BLOCK
    if extent <= BLOCK_RANGE[1]:
        return extent
    lo, hi = BLOCK_RANGE
    divisors = [d for d in range(lo, hi + 1) if extent % d == 0]
    return min(divisors, key=lambda d: (abs(d - BLOCK), -d)) if divisors else BLOCK


class _Base:
    """The generic spec: its text, its tiles' configurations (``infos``: plain, batched)
    and the smallest product it tiles (``min_rows``, ``min_columns``: its ``@large``)."""

    def __init__(self):
        with open(AVX2_MATMUL_TUNING) as f:
            self.text = text = f.read()
        self.infos = {}
        for batched, name in ((False, "@tiles_6x16()"), (True, "@tiles_6x16_batched()")):
            found = re.search(re.escape(name) + r".*?transform\.param\.constant (.*?)\n\s*->",
                              text, re.S)
            if found is None or _BLOCKS[batched] not in found.group(1):
                raise RuntimeError(f"irax: {AVX2_MATMUL_TUNING}: expected {name} configuring "
                                   f"{_BLOCKS[batched]!r}")
            self.infos[batched] = found.group(1)
        large = re.search(r"@large\(.*?%m_min = transform\.param\.constant (\d+).*?"
                          r"%n_min = transform\.param\.constant (\d+)", text, re.S)
        missing = [m for m in (_SHAPES, _NAMES) if m not in text]
        if large is None or missing:
            raise RuntimeError(f"irax: {AVX2_MATMUL_TUNING}: expected @large's %m_min and "
                               f"%n_min and the lines {missing or [_SHAPES, _NAMES]}")
        self.min_rows, self.min_columns = int(large.group(1)), int(large.group(2))


@functools.lru_cache(maxsize=None)
def _base() -> _Base:
    return _Base()


def _matcher(form: str, shape: tuple[int, int, int], info: str) -> tuple[str, str]:
    """The matcher of ``form`` products of ``shape`` (rows, columns, depth), configured
    with ``info``, and its name."""
    first = 1 if form == "batched_ab" else 0
    name = f"@match_{form}_{'x'.join(map(str, shape))}"
    dims, checks = [], []
    for i, (letter, extent) in enumerate(zip("mnk", shape)):
        dims.append(f"""\
      %{letter} = transform.match.structured.dim %s[{first + i}]
          : (!transform.any_op) -> !transform.param<i64>
      %{letter}_is = transform.param.constant {extent} : i64 -> !transform.param<i64>
""")
        checks.append(f"""\
      transform.match.param.cmpi eq %{letter}, %{letter}_is : !transform.param<i64>
""")
    text = f"""\
  transform.named_sequence {name}(%op: !transform.any_op {{transform.readonly}})
      -> (!transform.any_op, !transform.any_param) {{
    transform.include @form_{form} failures(propagate) (%op) : (!transform.any_op) -> ()
    %shaped = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {{
    ^bb0(%s: !transform.any_op):
{"".join(dims)}{"".join(checks)}\
      transform.match.structured.yield %s : !transform.any_op
    }}
    %info = transform.param.constant {info}
        -> !transform.any_param
    transform.yield %op, %info : !transform.any_op, !transform.any_param
  }}

"""
    return text, name


def configuration(rows: int, cols: int, depth: int) -> tuple[int, int, bool]:
    """The blocks (rows, columns) of a product of this shape, and whether its reduction
    goes in steps."""
    return block(rows), block(cols), depth * cols > STEPS_ABOVE


def spec_text(products) -> str:
    """The spec of a program whose products have the shapes ``products`` (``(rows,
    columns, depth, batched)``: ``lowering/work.py Work.products``)."""
    base = _base()
    text, infos = base.text, base.infos
    matchers, names = [], []
    for rows, cols, depth, batched in sorted(set(products)):
        if rows < base.min_rows or cols < base.min_columns:
            continue     # the spec leaves them to IREE
        bm, bn, steps = configuration(rows, cols, depth)
        if (bm, bn, steps) == (BLOCK, BLOCK, True):
            continue     # the generic matcher's
        lead = "1, " if batched else ""
        info = infos[batched].replace(
            _BLOCKS[batched], f"distribution = [{lead}{bm}, {bn}, 0], "
                              f"cache_parallel = [{lead}{bm}, {bn}, 0]")
        if not steps:
            info = _STEPS.sub("", info)
        for form in (("batched_ab",) if batched else ("ab", "atb")):
            matcher, name = _matcher(form, (rows, cols, depth), info)
            matchers.append(matcher)
            names.append(f"        {name} -> @annotate,\n")
    if not matchers:
        return text
    return text.replace(_SHAPES, _SHAPES + "".join(matchers)).replace(
        _NAMES, _NAMES + "".join(names))


def spec_for(products) -> str:
    """The path of the spec ``spec_text(products)`` (the generic file when that is it)."""
    text = spec_text(products)
    if text == _base().text:
        return AVX2_MATMUL_TUNING
    name = hashlib.sha256(text.encode()).hexdigest()[:32] + ".mlir"
    d = cache.cache_dir()
    with _lock:
        if d is not None:
            try:
                return _write(os.path.join(str(d), "tuning"), name, text)
            except OSError:     # a cache directory this process cannot write to
                pass
        if not _temporary:
            _temporary.append(tempfile.mkdtemp(prefix="irax-tuning-"))
            atexit.register(shutil.rmtree, _temporary[0], True)
        return _write(_temporary[0], name, text)


def _write(folder: str, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        cache.write_atomically(path, text.encode())
    return path
