"""Any sequence of messages a model may send keeps the RL environments typed: no exception, a prompt or the
end after each message, a reward in [0, 1] that the task's own scoring gives the same transcript."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from causal_datasets.integrations.rl_episodes import RLEpisode

SETTINGS = settings(max_examples=60, deadline=5000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
#: the characters of the replies both benchmarks read (JSON, their keys and words), and anything else
REPLY_TEXT = st.text(alphabet=st.sampled_from('{}[]":, 0123456789.-eshapeactionmoveholdnextanswer yes no\n'))
MESSAGES = st.lists(st.one_of(REPLY_TEXT, st.text(max_size=50)), max_size=12)
EPISODES = {"shapeworld": RLEpisode("shapeworld"), "causalab": RLEpisode("causalab")}


@SETTINGS
@given(st.sampled_from(sorted(EPISODES)), st.integers(0, 50), MESSAGES)
@example("shapeworld", 0, ['{"shape": "' + "[" * 5000 + '", "action": "move"}'])
@example("causalab", 0, ["{" * 20000, '{"action": "submit", "prediction": 1e999}', "\ud800"])
def test_any_messages_leave_a_typed_episode_and_a_reward_in_range(benchmark, seed, messages):
    episode = EPISODES[benchmark]
    opening = episode.reset(seed=seed)
    assert opening == episode.messages
    for message in messages:
        if episode.done:
            break
        prompt = episode.step(message)
        assert (prompt is None) == episode.done
        assert prompt is None or episode.messages[-1] == {"role": "user", "content": prompt}
    reward = episode.reward()
    assert 0.0 <= reward <= 1.0 and reward == episode.scores()[episode.reward_name]
