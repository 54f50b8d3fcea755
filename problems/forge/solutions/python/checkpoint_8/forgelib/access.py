"""Access boundaries: what each role may run. Every command needs one permission."""

from forgelib.errors import ForgeError, usage

ROLES = {
    "viewer": {"read"},
    "editor": {"read", "write"},
    "approver": {"read", "review"},
    "auditor": {"read", "audit"},
    "admin": {"read", "write", "review", "audit", "catalogue"},
}
"""Role -> the permissions it has."""
CHANGES = {"write", "review", "catalogue"}
"""Permissions of the commands that change the data directory (and are audited when they succeed)."""


def role_of(options):
    """The ``--role`` in effect (default ``admin``); a ``usage_error`` for an unknown one."""
    role = options.role or "admin"
    if role not in ROLES:
        raise usage(f"--role must be one of {', '.join(ROLES)}, got {role!r}")
    return role


def authorize(role, permission, command):
    """Fail with ``forbidden`` unless ``role`` has ``permission``."""
    if permission not in ROLES[role]:
        raise ForgeError("forbidden", f"the role {role} may not run {command}")
