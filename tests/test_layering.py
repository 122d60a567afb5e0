"""irax's layer order (docs/architecture.md), checked on every import of every file.

A file may import from its own layer and from the layers below it, never from one above;
``runtime`` sits beside the IR layers (it imports only ``core``, and only the frontend and
what is above it reach it). Function-level imports count like module-level ones, and no
two files may import each other, directly or through others.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "python"

#: lowest first; the packages (or modules) of one layer may import each other
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("irax.core",)),
    ("runtime", ("irax.runtime",)),
    ("dialect", ("irax.dialect",)),
    ("machinery", ("irax.autodiff", "irax.vectorize", "irax.shard", "irax.lowering")),
    ("passes", ("irax.passes",)),
    ("frontend", ("irax.frontend",)),
    ("transforms", ("irax.transforms",)),
    ("lax", ("irax.lax",)),
    ("numpy", ("irax.numpy",)),
    ("libraries", ("irax.random", "irax.nn", "irax.scipy", "irax.optim", "irax.export",
                   "irax.aot", "irax.example_libraries")),
    ("api", ("irax",)),
]
#: layers that must not reach the runtime although it ranks below them: the IR layers
#: transform and lower IR; only the frontend compiles and runs it
NO_RUNTIME = {"dialect", "machinery", "passes"}
#: an import that stays inside a function needs this comment on its line (or the line
#: before): it is deferred for what importing the module costs, not to dodge a cycle
DEFERRED_MARK = "import cost"


def layer_of(module: str) -> tuple[int, str]:
    best = None
    for rank, (name, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                if best is None or len(p) > best[2]:
                    best = (rank, name, len(p))
    if best is None:
        raise ValueError(f"{module} belongs to no layer")
    return best[0], best[1]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def collect_imports(root: Path):
    """``{module: [(imported module, line, deferred, marked)]}`` for every file under
    ``root`` (``from pkg import sub`` counts as an import of ``pkg.sub`` when ``sub`` is a
    module)."""
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    return {mod: [f for f in _file_imports(mod, path, files)
                  if f[0] == "irax" or f[0].startswith("irax.")]
            for mod, path in files.items()}


def _file_imports(mod: str, path: Path, files) -> list:
    source = path.read_text()
    lines = source.splitlines()
    is_pkg = path.name == "__init__.py"
    found = []

    def add(target, node, depth):
        line = lines[node.lineno - 1] + (lines[node.lineno - 2] if node.lineno > 1 else "")
        found.append((target, node.lineno, depth > 0, DEFERRED_MARK in line))

    def base_of(node) -> str:
        if not node.level:
            return node.module or ""
        pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
        pkg = pkg[:len(pkg) - node.level + 1]
        return ".".join(pkg + ([node.module] if node.module else []))

    def visit(node, depth):
        for child in ast.iter_child_nodes(node):
            d = depth + isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for a in child.names:
                    add(a.name, child, d)
            elif isinstance(child, ast.ImportFrom):
                base = base_of(child)
                for a in child.names:
                    sub = f"{base}.{a.name}"
                    add(sub if sub in files else base, child, d)
            visit(child, d)

    visit(ast.parse(source), 0)
    return found


def _resolve(target: str, modules) -> str:
    while target not in modules and "." in target:
        target = target.rsplit(".", 1)[0]
    return target


def layering_violations(imports) -> list[str]:
    problems = []
    for mod, targets in sorted(imports.items()):
        rank, layer = layer_of(mod)
        for target, line, deferred, marked in targets:
            t_rank, t_layer = layer_of(_resolve(target, imports))
            where = f"{mod}:{line}"
            if t_rank > rank:
                problems.append(f"{where}: {layer} imports {target} of the higher layer "
                                f"{t_layer}")
            elif t_layer == "runtime" and layer in NO_RUNTIME:
                problems.append(f"{where}: {layer} imports {target}: the runtime is "
                                "reached only from the frontend and above")
            if deferred and not marked:
                problems.append(f"{where}: function-level import of {target} (only import "
                                f"cost justifies one: say so with '# {DEFERRED_MARK}')")
    return problems


def import_cycles(imports) -> list[list[str]]:
    """Strongly connected components of more than one file (Tarjan's algorithm)."""
    graph = {m: sorted({_resolve(t, imports) for t, *_ in ts} - {m})
             for m, ts in imports.items()}
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                strong(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_every_import_respects_the_layer_order():
    problems = layering_violations(collect_imports(ROOT))
    assert not problems, "\n".join(problems)


def test_no_import_cycles():
    cycles = import_cycles(collect_imports(ROOT))
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def _synthetic(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_checks_catch_an_upward_import_a_deferred_one_and_a_cycle(tmp_path):
    root = _synthetic(tmp_path, {
        "irax/__init__.py": "",
        "irax/core/__init__.py": "",
        "irax/core/a.py": "from irax.numpy import sum\n",          # upward
        "irax/dialect/__init__.py": "",
        "irax/dialect/b.py": "def f():\n    from irax.core import a\n",  # deferred
        "irax/dialect/c.py": "from irax.dialect import d\n",
        "irax/dialect/d.py": "from irax.dialect.c import x\n",      # cycle c <-> d
        "irax/dialect/e.py": "from irax.runtime import array\n",    # runtime from dialect
        "irax/numpy/__init__.py": "def f():\n    import irax.lax  # import cost\n",
        "irax/lax/__init__.py": "",
        "irax/runtime/__init__.py": "",
        "irax/runtime/array.py": "",
    })
    imports = collect_imports(root)
    problems = layering_violations(imports)
    assert any("irax.core.a:1: core imports irax.numpy of the higher layer numpy" in p
               for p in problems)
    assert any("irax.dialect.b:2: function-level import of irax.core.a" in p for p in problems)
    assert any("irax.dialect.e:1: dialect imports irax.runtime.array" in p for p in problems)
    assert not any(p.startswith("irax.numpy") for p in problems)  # marked and downward
    assert import_cycles(imports) == [["irax.dialect.c", "irax.dialect.d"]]
