"""The native module. Reviews cross as JSON (crit's ``ReviewResult`` schema);
``crit`` wraps them in typed objects. Awaitables run on crit's own runtime
without the GIL; cancelling one stops the review and kills its processes."""

from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

__version__: str

class CritError(Exception):
    """Base class of every error crit raises."""

class ConfigError(CritError):
    """A configuration file, template, hook, project rule or input is wrong."""

class BackendError(CritError):
    """The model backend cannot be used (bad provider, model or URL)."""

class NoBackendError(BackendError):
    """No model backend is configured; the message lists every way to configure one."""

class ScopeError(CritError):
    """The change to review cannot be computed (a bad range or commit, not a git repository)."""

class ContextError(CritError):
    """The project's conventions (CLAUDE.md, AGENTS.md, .claude/rules) cannot be read."""

class SessionError(CritError):
    """The session log under .crit/sessions cannot be written."""

class McpError(CritError):
    """An MCP server of the configuration did not start."""

class PlanError(CritError):
    """A plan review could not run (state locked by another run, or I/O)."""

class PostError(CritError):
    """Posting to the pull or merge request failed; the result is unaffected."""

# (event, matcher, adapter, name); the adapter takes the hook input as JSON
# and returns the answer as JSON, or an awaitable of it.
HookSpec = Tuple[str, str, Callable[[str], Any], str]

class Crit:
    @staticmethod
    def from_config(
        path: str,
        hooks: List[HookSpec],
        max_budget_usd: Optional[float] = None,
        verbose: bool = False,
    ) -> "Crit": ...
    @staticmethod
    def from_json(
        text: str,
        hooks: List[HookSpec],
        max_budget_usd: Optional[float] = None,
        verbose: bool = False,
    ) -> "Crit": ...
    @property
    def cwd(self) -> str: ...
    def review(self, prompt: str) -> Awaitable[str]: ...
    def review_sync(self, prompt: str) -> str: ...

class CodeReviewer:
    @staticmethod
    def agent(
        repo: str, model: Optional[str] = None, log: bool = True, system_prompt: Optional[str] = None
    ) -> "CodeReviewer": ...
    @staticmethod
    def command(argv: List[str], repo: str) -> "CodeReviewer": ...
    @staticmethod
    def configured(repo: str, model: Optional[str] = None, log: bool = True) -> "CodeReviewer": ...
    @property
    def kind(self) -> str: ...
    def review(
        self,
        diff_range: Optional[str] = None,
        commit_shas: List[str] = ...,
        context_file: Optional[str] = None,
        timeout: Optional[float] = None,
        session_id: Optional[str] = None,
    ) -> Awaitable[str]: ...
    def review_sync(
        self,
        diff_range: Optional[str] = None,
        commit_shas: List[str] = ...,
        context_file: Optional[str] = None,
        timeout: Optional[float] = None,
        session_id: Optional[str] = None,
    ) -> str: ...
    def overrides_disabled_setting(self) -> bool: ...

def review_template(
    name: str,
    inputs: Dict[str, str],
    cwd: Optional[str] = None,
    model: Optional[str] = None,
    context_file: Optional[str] = None,
    log: bool = True,
    template_text: Optional[str] = None,
) -> Awaitable[str]: ...
def review_template_sync(
    name: str,
    inputs: Dict[str, str],
    cwd: Optional[str] = None,
    model: Optional[str] = None,
    context_file: Optional[str] = None,
    log: bool = True,
    template_text: Optional[str] = None,
) -> str: ...
def templates(cwd: Optional[str] = None) -> str: ...
def squadron_dict(result: str) -> str: ...
def yaml_to_json(text: str) -> str: ...
def review_plan(
    path: str,
    answers: Dict[str, str],
    panel: bool = True,
    cwd: Optional[str] = None,
    log: bool = True,
    fail_on: Optional[str] = None,
) -> Awaitable[str]: ...
def review_plan_sync(
    path: str,
    answers: Dict[str, str],
    panel: bool = True,
    cwd: Optional[str] = None,
    log: bool = True,
    fail_on: Optional[str] = None,
) -> str: ...
def review_prompt(
    text: str,
    cwd: Optional[str] = None,
    model: Optional[str] = None,
    cache: bool = True,
    log: bool = True,
) -> Awaitable[str]: ...
def review_prompt_sync(
    text: str,
    cwd: Optional[str] = None,
    model: Optional[str] = None,
    cache: bool = True,
    log: bool = True,
) -> str: ...

def post(
    result: str,
    forge: str,
    token_env: Optional[str] = None,
    pull_request: Optional[int] = None,
    github_login: Optional[str] = None,
    max_comments: Optional[int] = None,
) -> Awaitable[str]: ...
def post_sync(
    result: str,
    forge: str,
    token_env: Optional[str] = None,
    pull_request: Optional[int] = None,
    github_login: Optional[str] = None,
    max_comments: Optional[int] = None,
) -> str: ...
