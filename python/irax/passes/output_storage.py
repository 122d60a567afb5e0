"""irax-output-storage: a program's large results written into buffers its caller passes
(IREE's ``iree.abi.output``), so that they come from the caller's allocator.

On IREE 3.13's thread pool (``local-task``) a program's results are queue allocations the
task device serves from its own pools: a TLSF pool over 64 MB slabs and, for anything
larger, a fresh slab per allocation, returned when freed. A result above 64 MB is then a
fresh mapping at every call, and writing it faults its pages in: ``x + x*x + x*x*x`` on
5000x5000 floats took 36-44 ms a call on the pool (24,435 page faults) against 7-8 ms on
one thread (docs/performance.md, "The caching allocator"). With the result's storage an
argument, IREE writes the result into the caller's buffer: irax allocates it from the
device's caching allocator, which hands back the same (huge-page advised) buffers call
after call; the pool then took 4.3-6.6 ms, with no fault.

Each public function's results of static shape holding at least ``min-bytes`` bytes of
integers or floats get a trailing argument, in result order, that is their storage;
the function records which results have one (``irax.output_storage``), for the runtime
that allocates them (``lowering/work.py``, ``runtime/executable.py``). A result that is
an argument, or that another result already returns, keeps IREE's own buffer. Modules
placed on several devices, and modules with a loop IREE drives from the host (whose
command buffers IREE 3.13 reuses; docs/performance.md, "The local-task race"), are left
alone. jit applies it to one-device CPU programs (``frontend/compile.py
compiled_module``: a donated argument is no result's storage there, since IREE 3.13 read
an argument made a result's storage while writing it: ``irax-legalize-iree`` drops the
donation); exported programs keep their plain signature.

Before:
    func.func @main(%x: tensor<5000x5000xf32>) -> tensor<5000x5000xf32> {
      %0 = stablehlo.multiply %x, %x : tensor<5000x5000xf32>
      return %0 : tensor<5000x5000xf32>
    }
After:
    func.func @main(%x: tensor<5000x5000xf32>,
                    %out: tensor<5000x5000xf32> {iree.abi.output = 0 : index})
        -> tensor<5000x5000xf32> attributes {irax.output_storage = array<i64: 0>} {
      %0 = stablehlo.multiply %x, %x : tensor<5000x5000xf32>
      return %0 : tensor<5000x5000xf32>
    }
"""

from __future__ import annotations

import math

from irax.dialect import funcs, mlir
from irax.dialect import upstream as U
from irax.lowering.stablehlo import num_devices
from irax.lowering.work import OUTPUTS_ATTR, measure
from irax.passes.registry import ModulePass, Option, register_pass

OUTPUT = "iree.abi.output"


@register_pass
class OutputStorage(ModulePass):
    """irax-output-storage: large results of public functions written into storage
    arguments the caller allocates (iree.abi.output)"""

    name = "irax-output-storage"
    options = {"min-bytes": Option(int, 1 << 22, "the fewest bytes a result given storage "
                                                 "holds")}

    def run(self, module) -> None:
        n = self.option("min-bytes")
        if not wanted(module, n) or measure(module).host_loops:
            return
        for fn in _public(module):
            add_storage(fn, n)


def _public(module) -> list:
    return [fn for fn in module.body.operations
            if U.op_class(fn) is U.FuncFunc and len(fn.regions[0].blocks)
            and "sym_visibility" not in fn.attributes]


def wanted(module, min_bytes: int = 1 << 22) -> bool:
    """Whether a one-device module has a public function with a result this pass may
    give storage (read from the signatures alone: cheap beside the pass, whose walk for
    loops costs some 50 ms on a module of 10,000 ops)."""
    if num_devices(module):
        return False
    ir = mlir.ir()
    for fn in _public(module):
        results = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).results
        if any((_bytes(t) or 0) >= min_bytes for t in results):
            return True
    return False


def _bytes(t) -> int | None:
    """The bytes of a static tensor type of integers or floats of 8 bits or more."""
    ir = mlir.ir()
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        return None
    e = t.element_type
    if not isinstance(e, (ir.IntegerType, ir.FloatType)):
        return None
    bits = e.width
    return math.prod(t.shape) * bits // 8 if bits >= 8 and bits % 8 == 0 else None


def add_storage(fn, min_bytes: int) -> list[int]:
    """Gives ``fn``'s large results storage arguments (the module docstring); the indices
    of those results."""
    ir = mlir.ir()
    if OUTPUTS_ATTR in fn.attributes:
        return []
    block = fn.regions[0].blocks[0]
    ret = list(block.operations)[-1]
    args = funcs.entry_attrs(fn, "arg_attrs") or [{} for _ in block.arguments]
    if any(OUTPUT in d for d in args):
        return []
    chosen, seen = [], set()
    for i, v in enumerate(ret.operands):
        n = _bytes(v.type)
        if n is None or n < min_bytes or isinstance(v, ir.BlockArgument) or v in seen:
            continue
        seen.add(v)
        chosen.append(i)
    if not chosen:
        return []
    loc = mlir.unknown_loc()
    index = ir.IndexType.get()
    for i in chosen:
        block.add_argument(ret.operands[i].type, loc)
        args.append({OUTPUT: ir.IntegerAttr.get(index, i)})
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
        [a.type for a in block.arguments], list(ftype.results)))
    funcs.set_entry_attrs(fn, "arg_attrs", args)
    fn.attributes[OUTPUTS_ATTR] = ir.DenseI64ArrayAttr.get(chosen)
    return chosen
