"""docs/python.md's examples run: every ```python block, in order, in one namespace (a block may
use what an earlier one defined). Blocks that need a GPU or a DSL start with a comment line
`# needs: torch.cuda` (or `# needs: cutlass`, ...) and are skipped where that is missing. Each block
is compiled from a .py file that holds it: the DSLs compile a function from its source text
(CuTe DSL's @cute.jit reads it with inspect.getsource), which code given to exec() as a string
lacks."""

import importlib
import re

import pytest

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(source_dir, page="python.md"):
    return BLOCK.findall((source_dir / "docs" / page).read_text())


def available(need: str) -> bool:
    if need == "torch.cuda":
        try:
            import torch
            return torch.cuda.is_available()
        except ImportError:
            return False
    try:
        importlib.import_module(need)
        return True
    except ImportError:
        return False


def test_docs_have_examples(source_dir):
    assert len(blocks(source_dir)) >= 5


def test_every_python_block_runs(source_dir, tmp_path, capsys):
    namespace: dict = {"__name__": "docs_python_md"}
    ran = 0
    for i, code in enumerate(blocks(source_dir)):
        first = code.splitlines()[0] if code else ""
        m = re.match(r"# needs: (.*)", first)
        if m and not all(available(n.strip()) for n in m.group(1).split(",")):
            continue
        path = tmp_path / f"python_md_block_{i}.py"
        path.write_text(code)
        try:
            exec(compile(code, str(path), "exec"), namespace)
        except Exception as e:
            pytest.fail(f"docs/python.md block {i} failed: {e!r}\n{code}")
        ran += 1
    assert ran >= 5


def test_field_failures_python_blocks_run(source_dir):
    """docs/field_failures.md: each failure's Python equivalent runs on its own and asserts its rule ids."""
    codes = blocks(source_dir, "field_failures.md")
    assert len(codes) >= 3
    for i, code in enumerate(codes):
        try:
            exec(compile(code, f"field_failures_md_block_{i}.py", "exec"), {"__name__": "field_failures_md"})
        except Exception as e:
            pytest.fail(f"docs/field_failures.md block {i} failed: {e!r}\n{code}")
