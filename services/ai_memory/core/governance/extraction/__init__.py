"""Extraction of typed memories from interaction text (rule-based offline; LLM interface)."""

from .base import (
    LLM_EXTRACTION_KIND,
    ExtractedMemory,
    Extractor,
    Interaction,
    LLMExtractionClient,
    LLMExtractor,
    extracted_from_decision,
    extraction_decision,
)
from .rule_based import RuleBasedExtractor, split_sentences

__all__ = [
    "LLM_EXTRACTION_KIND",
    "ExtractedMemory",
    "Extractor",
    "Interaction",
    "LLMExtractionClient",
    "LLMExtractor",
    "RuleBasedExtractor",
    "extracted_from_decision",
    "extraction_decision",
    "split_sentences",
]
