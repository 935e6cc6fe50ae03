"""The Python package's modules import one another without a cycle: every import counts, also those inside a
function or under ``TYPE_CHECKING``, since deferring an import hides a cycle without removing it; and the
command line's start-up imports no heavy library it does not use."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import mpsim

PACKAGE = Path(mpsim.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_module(name: str) -> bool:
    """Whether ``name`` is a module of the package (the compiled core ``mpsim._core`` too)."""
    parent = name.rpartition(".")[0]
    in_package = parent in MODULES and MODULES[parent].name == "__init__.py"
    return name in MODULES or (in_package and importlib.util.find_spec(name) is not None)


def imported(name: str, path: Path) -> set[str]:
    """The package's modules that module ``name`` imports: ``from a.b import c`` names ``a.b.c`` when that
    is a module, else ``a.b``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base)
    return {m for m in out if m in MODULES and m != name}


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of ``graph`` as the modules along it (the first repeated at the end), or none."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = "done"
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_every_module_of_the_package_is_seen_and_imports() -> None:
    assert {"mpsim", "mpsim.scenario", "mpsim.experiments", "mpsim.experiments.reproduce"} <= set(MODULES)
    for name in MODULES:
        importlib.import_module(name)


def test_the_import_graph_of_the_package_has_no_cycle() -> None:
    graph = {name: imported(name, path) for name, path in MODULES.items()}
    assert graph["mpsim.experiments.report"] >= {"mpsim.experiments.scorecard"}
    assert cycle(graph) == [], " -> ".join(cycle(graph))


def test_a_cycle_is_found_and_named() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []


HEAVY = ("numpy", "pyarrow", "matplotlib", "pydantic", "polars", "pandas")
"""Libraries that take tens of milliseconds to import: a command imports the ones it uses when it runs."""


def heavy_imports(code: str) -> set[str]:
    """The heavy libraries a fresh interpreter has imported after running ``code``."""
    probe = f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split()) & set(HEAVY)


def command(*args: str) -> str:
    """Code that runs ``mpsim ARGS`` in-process, as the console script does."""
    run = "try:\n    main()\nexcept SystemExit:\n    pass"
    return f"from mpsim.cli import main\nsys.argv = ['mpsim', *{args!r}]\n{run}"


def test_the_package_and_the_command_line_import_a_heavy_library_only_where_it_is_used() -> None:
    example = str(PACKAGE.parents[1] / "examples" / "wifi_lte.toml")
    assert heavy_imports("import mpsim; mpsim.ConfigError") == set()
    assert heavy_imports(command("--help")) == set()
    # typer checks a command's parameters with pydantic: nothing else.
    assert heavy_imports(command("plot", "--help")) == {"pydantic"}
    # Checking a scenario needs its model (pydantic), not Arrow, NumPy or Matplotlib.
    assert heavy_imports(command("validate", example)) == {"pydantic"}
    # A name of the package imports its module when first used.
    assert heavy_imports("import mpsim; mpsim.Scenario") == {"pydantic"}
    assert "pyarrow" in heavy_imports(f"import mpsim; mpsim.run(mpsim.load({example!r})).flows")


def test_checking_a_scenario_prints_without_rich_and_builds_only_the_preset_it_names() -> None:
    """``mpsim validate`` writes plain lines (rich takes ~20 ms to import) and pydantic builds the model of
    the one topology preset the file names, not all six (each ~1 ms)."""
    example = str(PACKAGE.parents[1] / "examples" / "css_shared_bottleneck.toml")
    probe = (
        "import sys\n"
        f"{command('validate', example)}\n"
        "from mpsim.topologies import PRESETS\n"
        "built = [name for name, cls in PRESETS.items() if cls.__pydantic_complete__]\n"
        "print('rich' in sys.modules, *built)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert "valid" in done.stdout
    assert done.stdout.split()[-2:] == ["False", "shared_bottleneck"]
