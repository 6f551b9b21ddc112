"""``python -m causal_datasets.integrations.lm_eval``: print the task folder for ``lm_eval --include_path``."""

from causal_datasets.integrations.lm_eval import tasks_dir

print(tasks_dir())
