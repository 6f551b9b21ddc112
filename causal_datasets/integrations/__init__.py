"""The benchmarks inside other tools: inspect_ai tasks (``inspect_tasks``) and lm-evaluation-harness task
configs (``lm_eval``), over the same prompts and scoring as ``causal-datasets eval``; ShapeWorld and CausaLab
as RL environments (``rl_episodes``) for TRL's environment mode (``trl_env``) and verl's interactions
(``verl_interaction``), over the environments ``eval`` plays."""
