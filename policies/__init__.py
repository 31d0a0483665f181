"""Language-model backends behind one small interface (see :mod:`policies.base`).

Heavy backends (transformers, vLLM, HTTP) import lazily: this package imports without torch.
"""

from policies.base import Generation, Message, Policy, SamplingParams
from policies.scripted import ScriptedPolicy

__all__ = ["Generation", "Message", "Policy", "SamplingParams", "ScriptedPolicy"]
