"""crit: reviews of code changes, design documents and plans by LLM
reviewers and a deterministic rule engine, merged into one result that fails
closed.

In-process API (the review runs in Rust, without the GIL)::

    from crit import Crit
    crit = Crit.from_config(".claude/reldo.json")
    result = await crit.review("Review src/auth.py: added token refresh")
    result.passed, result.verdict, result.findings, result.to_json()

Also: ``AgentReviewer`` / ``CommandReviewer`` (mala's ``CodeReviewer``
protocol), ``review_template``, ``review_plan``, ``review_prompt``; Reldo's facade in
``crit.compat.reldo``. The ``crit`` command comes with the package.
"""

from crit._crit import (
    BackendError,
    ConfigError,
    ContextError,
    CritError,
    McpError,
    NoBackendError,
    PlanError,
    PostError,
    ScopeError,
    SessionError,
    __version__,
)
from crit.code import (
    AgentReviewer,
    CodeReviewResult,
    CommandReviewer,
    ReviewIssue,
    code_reviewer,
)
from crit.hooks import HookMatcher
from crit.posting import PostReport, post, post_sync
from crit.result import (
    Dismissed,
    Finding,
    Location,
    PromptReview,
    ReviewerOutcome,
    ReviewResult,
    TemplateResult,
    Usage,
)
from crit.reviews import (
    review_prompt,
    review_prompt_sync,
    review_plan,
    review_plan_sync,
    review_template,
    review_template_sync,
)
from crit.run import Crit

__all__ = [
    "AgentReviewer",
    "BackendError",
    "CodeReviewResult",
    "CommandReviewer",
    "ConfigError",
    "ContextError",
    "Crit",
    "CritError",
    "Dismissed",
    "Finding",
    "HookMatcher",
    "Location",
    "McpError",
    "NoBackendError",
    "PlanError",
    "PostError",
    "PostReport",
    "PromptReview",
    "ReviewIssue",
    "ReviewResult",
    "ReviewerOutcome",
    "ScopeError",
    "SessionError",
    "TemplateResult",
    "Usage",
    "__version__",
    "code_reviewer",
    "post",
    "post_sync",
    "review_plan",
    "review_plan_sync",
    "review_prompt",
    "review_prompt_sync",
    "review_template",
    "review_template_sync",
]
