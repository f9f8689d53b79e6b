"""The CLI's --json adds the process outcome to every answer ("ok", "exit"; docs/cli.md): the Python
API returns the answer alone. without_outcome(cli_json) is what the two have in common."""


def without_outcome(cli_json: dict) -> dict:
    return {k: v for k, v in cli_json.items() if k not in ("ok", "exit")}
