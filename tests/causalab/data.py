"""Where the CausaLab tests read the authors' release and their sample run (under the shared data folder)."""

from tests.support.data import SHARED_DATA_DIR

#: the release's data/ folder (<suite>.jsonl per suite)
RELEASE = SHARED_DATA_DIR / "causalab" / "data"
#: the authors' released gpt-5-mini run of 4nodes_0
SAMPLE = SHARED_DATA_DIR / "causalab" / "sample_run_4nodes_0_gpt-5-mini"
