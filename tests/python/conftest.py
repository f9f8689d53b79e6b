"""Shared fixtures of the Python tests: where the repository is, and the CLI when it was built."""

import os
import pathlib
import shutil

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("TMAKIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="module")
def source_dir() -> pathlib.Path:
    return SOURCE_DIR


@pytest.fixture(scope="module")
def cli() -> str:
    """The tmakit binary the build made (CTest passes TMAKIT_CLI); skips where there is none."""
    path = os.environ.get("TMAKIT_CLI") or shutil.which("tmakit") or str(SOURCE_DIR / "build" / "tmakit")
    if not os.path.exists(path):
        pytest.skip("no tmakit binary (set TMAKIT_CLI)")
    return path
