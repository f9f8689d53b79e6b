#!/usr/bin/env bash
# A virtual environment for building and testing the Python package: python_env.sh DIR creates DIR
# (once) with the interpreter $PYTHON (default python3) and installs what the build and the tests
# need (nanobind, scikit-build-core, nlohmann-json, pytest, numpy, hypothesis) with pip, retried, when missing.
# On Debian it installs python3-venv / python3-dev with apt-get when venv or the headers are missing.
set -euo pipefail
DIR=${1:?usage: python_env.sh DIR}
PY=${PYTHON:-python3}
REQUIREMENTS=(nanobind scikit-build-core nlohmann-json pytest numpy hypothesis)

apt_install() {
  command -v apt-get >/dev/null || { echo "python_env.sh: missing $*; install it by hand" >&2; exit 1; }
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  echo "python_env.sh: installing $*"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

if ! command -v "$PY" >/dev/null; then
  apt_install python3 python3-venv python3-dev
fi
if ! "$PY" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  apt_install python3-dev
fi
if [ ! -x "$DIR/bin/python" ]; then
  if ! "$PY" -m venv "$DIR" 2>/dev/null; then
    rm -rf "$DIR"
    apt_install python3-venv
    "$PY" -m venv "$DIR"
  fi
fi
if ! "$DIR/bin/python" -c 'import nanobind, scikit_build_core, nlohmann_json, pytest, numpy, hypothesis' 2>/dev/null; then
  for attempt in 1 2 3; do
    if "$DIR/bin/python" -m pip install -q --disable-pip-version-check --retries 5 --timeout 60 "${REQUIREMENTS[@]}"; then
      break
    fi
    if [ "$attempt" = 3 ]; then
      echo "python_env.sh: pip could not install ${REQUIREMENTS[*]}" >&2
      exit 1
    fi
    sleep $((attempt * 10))
  done
fi
