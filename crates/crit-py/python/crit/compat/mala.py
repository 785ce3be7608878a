"""mala's code reviewer on crit. ``AgentReviewer`` is the in-process reviewer
(mala's ``AgentSDKReviewer``), ``CommandReviewer`` runs an external reviewer
program (Cerberus' ``review-gate``), and ``reviewer_from_config`` picks one
as the project's ``.crit/config.yaml`` says (``reviewer: command``), the
agent by default. Both satisfy mala's ``CodeReviewer`` protocol::

    reviewer = AgentReviewer(repo_path)
    result = await reviewer(diff_range="main..HEAD", context_file="/tmp/ctx.md", timeout=300)
    result.passed, result.issues, result.parse_error, result.fatal_error, result.review_log_path
"""

from crit.code import (
    AgentReviewer,
    CodeReviewResult,
    CommandReviewer,
    ReviewIssue,
)
from crit.code import code_reviewer as reviewer_from_config

ReviewResult = CodeReviewResult
AgentSDKReviewer = AgentReviewer
CerberusReviewer = CommandReviewer

__all__ = [
    "AgentReviewer",
    "AgentSDKReviewer",
    "CerberusReviewer",
    "CommandReviewer",
    "ReviewIssue",
    "ReviewResult",
    "reviewer_from_config",
]
