"""The benchmarks inside other evaluation tools: inspect_ai tasks (``inspect_tasks``) and
lm-evaluation-harness task configs (``lm_eval``), over the same prompts and scoring as ``causal-datasets eval``."""
