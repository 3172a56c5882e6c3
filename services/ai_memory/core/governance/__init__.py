"""Memory governance (docs/API.md, "Governed memory") — pure, deterministic.

* ``params``: every tunable number (``GovernanceParams``);
* ``scoring``: S(m) = α·I + β·C + γ·R + δ·F with an explainable ``ScoreBreakdown``;
* ``slots``, ``opposites``, ``conflicts``: what a memory is about and when two contradict;
* ``resolution``: the θ rule and the slow-update ``reconsider`` path;
* ``lifecycle``: states, allowed transitions, soft forgetting, the governor's pass;
* ``extraction``: text → typed memories (rule-based EN/ZH; LLM interface);
* ``triggers``: when a turn is worth a write; ``ranking``: the two-stage rerank.

No I/O; the clock reading (``now``) is always passed in. Non-deterministic judges (LLM)
return ``RecordedDecision``s so replays never call them again.
"""

from .conflicts import (
    ConflictDetector,
    ConflictVerdict,
    DictionaryConflictDetector,
    EmbeddingSimilarityDetector,
    JudgeAnswer,
    JudgeClient,
    LLMJudgeDetector,
    Relation,
    verdict_from_decision,
)
from .decisions import Decision, RecordedDecision
from .lifecycle import (
    ALLOWED_TRANSITIONS,
    IllegalTransition,
    check_transition,
    forget_check,
    is_allowed,
    plan_governor_pass,
    reconfirm,
)
from .model import GovernedMemory, Transition, from_stored
from .params import GovernanceParams
from .ranking import Candidate, Explanation, Ranked, contenders, rerank
from .resolution import Path, Resolution, WriteGovernance, govern_write, reconsider, resolve
from .scoring import Component, ScoreBreakdown, score
from .slots import Slot, is_exclusive
from .triggers import Trigger, Turn, WriteSuggestion, should_write

__all__ = [
    "ALLOWED_TRANSITIONS",
    "Candidate",
    "Component",
    "ConflictDetector",
    "ConflictVerdict",
    "Decision",
    "DictionaryConflictDetector",
    "EmbeddingSimilarityDetector",
    "Explanation",
    "GovernanceParams",
    "GovernedMemory",
    "IllegalTransition",
    "JudgeAnswer",
    "JudgeClient",
    "LLMJudgeDetector",
    "Path",
    "Ranked",
    "RecordedDecision",
    "Relation",
    "Resolution",
    "ScoreBreakdown",
    "Slot",
    "Transition",
    "Trigger",
    "Turn",
    "WriteGovernance",
    "WriteSuggestion",
    "check_transition",
    "contenders",
    "forget_check",
    "from_stored",
    "govern_write",
    "is_allowed",
    "is_exclusive",
    "plan_governor_pass",
    "reconfirm",
    "reconsider",
    "rerank",
    "resolve",
    "score",
    "should_write",
    "verdict_from_decision",
]
