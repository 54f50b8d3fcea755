"""Approval policies, proposals, reviews and their statuses."""

from __future__ import annotations

import re

from errors import ApiError, bad_input, conflict, not_found

MAX_PROPOSALS = 1000
MAX_REVIEWERS = 1000
MAX_ACTOR = 128
DEFAULT_POLICY = {"required_approvals": 2, "allow_author_approval": False, "allowed_reviewers": None}
CLOSED = ("merged", "withdrawn", "superseded")
LABEL = re.compile(r"[a-z0-9._-]{1,32}")
STATUSES = ("open", "approved", "rejected", "merged", "withdrawn", "superseded", "any")


def policy_violation(message: str, details: dict | None = None) -> ApiError:
    return ApiError(422, "policy_violation", message, details)


def approval_required(message: str) -> ApiError:
    return ApiError(409, "approval_required", message)


def stale_base(message: str) -> ApiError:
    return ApiError(409, "stale_base", message)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def actor(value, field: str = "actor") -> str:
    if not isinstance(value, str) or not value or utf8_len(value) > MAX_ACTOR:
        raise bad_input(f"{field} must be a non-empty string of at most {MAX_ACTOR} bytes")
    return value


def optional_text(body: dict, field: str, limit: int) -> str | None:
    value = body.get(field)
    if value is not None and (not isinstance(value, str) or utf8_len(value) > limit):
        raise bad_input(f"{field} must be a string of at most {limit} bytes")
    return value


def labels(value) -> list[str]:
    value = [] if value is None else value
    if not isinstance(value, list) or len(value) > 32:
        raise bad_input("labels must be a list of at most 32 labels")
    if not all(isinstance(label, str) and LABEL.fullmatch(label) for label in value):
        raise bad_input("each label is 1 to 32 characters of a-z, 0-9, '.', '_', '-'")
    return sorted(set(value))


def base_version(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise bad_input("base_version must be a non-negative integer")
    return value


def reviewers(value) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(name, str) and name for name in value):
        raise policy_violation("allowed_reviewers must be a list of non-empty strings or null")
    return sorted(set(value))


def parse_policy(body: dict) -> dict:
    if "required_approvals" not in body or "allow_author_approval" not in body:
        raise bad_input("setting a policy needs required_approvals and allow_author_approval")
    required = body["required_approvals"]
    if not isinstance(required, int) or isinstance(required, bool) or not 1 <= required <= 10:
        raise policy_violation("required_approvals must be an integer from 1 to 10")
    if not isinstance(body["allow_author_approval"], bool):
        raise policy_violation("allow_author_approval must be a boolean")
    return {"required_approvals": required, "allow_author_approval": body["allow_author_approval"],
            "allowed_reviewers": reviewers(body.get("allowed_reviewers"))}


class Proposal:
    """One proposal: its fixed fields, its reviews by actor, its status."""

    def __init__(self, fields: dict):
        self.fields = fields
        self.reviews: dict[str, dict] = {}
        self.status = "open"
        self.merge_result: dict | None = None

    @property
    def pair_key(self) -> tuple[str, str]:
        return self.fields["pair_key"]

    def document(self) -> dict:
        by_actor = [self.reviews[name] for name in sorted(self.reviews)]
        approvals = sum(review["decision"] == "approve" for review in by_actor)
        public = {key: value for key, value in self.fields.items() if key != "pair_key"}
        return {**public, "status": self.status,
                "tally": {"approvals": approvals, "rejections": len(by_actor) - approvals, "by_actor": by_actor}}

    def review(self, name: str, decision: str, message) -> None:
        quorum = self.fields["quorum"]
        if quorum["allowed_reviewers"] is not None and name not in quorum["allowed_reviewers"]:
            raise policy_violation(f"{name!r} may not review this proposal")
        if decision == "approve" and name == self.fields["author"] and not quorum["allow_author_approval"]:
            raise policy_violation("the author may not approve this proposal")
        if name not in self.reviews and len(self.reviews) >= MAX_REVIEWERS:
            raise conflict("review limit reached for this proposal")
        self.reviews[name] = {"actor": name, "decision": decision, "message": message}
        tally = self.document()["tally"]
        enough = tally["approvals"] >= quorum["required_approvals"]
        self.status = "rejected" if tally["rejections"] else "approved" if enough else "open"


class Workflow:
    """Every pair's policy and proposals, and the service-wide proposal counter."""

    def __init__(self):
        self.policies: dict[tuple[str, str], dict] = {}
        self.proposals: list[Proposal] = []

    def policy(self, pair_key: tuple[str, str]) -> dict:
        return self.policies.get(pair_key, DEFAULT_POLICY)

    def find(self, proposal_id: int) -> Proposal | None:
        return self.proposals[proposal_id - 1] if 1 <= proposal_id <= len(self.proposals) else None

    def get(self, proposal_id: int) -> Proposal:
        found = self.find(proposal_id)
        if found is None:
            raise not_found(f"no proposal {proposal_id}")
        return found

    def of_pair(self, pair_key: tuple[str, str]) -> list[Proposal]:
        return [proposal for proposal in self.proposals if proposal.pair_key == pair_key]

    def open(self, fields: dict) -> Proposal:
        siblings = self.of_pair(fields["pair_key"])
        if len(siblings) >= MAX_PROPOSALS:
            raise conflict("proposal limit reached for this config")
        for sibling in siblings:
            if sibling.fields["draft_version"] == fields["draft_version"] and sibling.status == "open":
                sibling.status = "superseded"
        proposal = Proposal({**fields, "proposal_id": len(self.proposals) + 1,
                             "quorum": dict(self.policy(fields["pair_key"]))})
        self.proposals.append(proposal)
        return proposal

    def merged(self, proposal: Proposal, result: dict) -> dict:
        proposal.status = "merged"
        proposal.merge_result = result
        for sibling in self.of_pair(proposal.pair_key):
            if sibling.status == "open":
                sibling.status = "superseded"
        return result
