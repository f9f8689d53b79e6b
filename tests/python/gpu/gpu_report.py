"""What every GPU test prints for the record: the descriptor decoded, its diff against tmakit's
plan and the check against it."""

import tmakit


def report(title: str, descriptor, plan, **check_args) -> "object":
    """Prints the descriptor, its diff against the plan's and the check, and returns the check."""
    check = tmakit.check_against_plan(descriptor, plan, **check_args)
    print(f"\n=== {title}")
    print(tmakit.decode(descriptor).text)
    print("--- diff against tmakit's plan (a = plan, b = descriptor):")
    print(tmakit.diff(check.expected, descriptor).text)
    print("--- check_against_plan:", check_args or "")
    print(check.text)
    return check
