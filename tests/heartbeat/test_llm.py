"""The OpenAI-compatible extractor against a real HTTP server on 127.0.0.1.

`tests/heartbeat/fake_llm.py` plays the endpoint: good, fenced, wrapped and garbled
answers, 500s, a server that never answers, a closed port, a refusal of JSON mode, 429
with Retry-After, and the API key's journey (sent when set, never in a reason).
"""

from __future__ import annotations

import datetime as dt
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.heartbeat import fake_llm
from tests.heartbeat.fake_llm import FakeChatEndpoint, Received, Reply
from tests.heartbeat.test_answers import MARIA, PATEL, PLAIN
from vault_app.core import config, models
from vault_app.heartbeat import llm
from vault_app.heartbeat.extraction import Entry

KEY = "sk-test-5ecret-key-0123456789"
DAY = dt.date(2026, 11, 20)  # a Friday


def entry(text: str = "Maria can't stand cilantro.", n: int = 0) -> Entry:
    return Entry(
        path="agents/household/daily/2026-11-20.md",
        date=DAY,
        time=f"08:{n:02d}:00",
        text=text,
        agent="household",
    )


def extractor(endpoint: FakeChatEndpoint, **options: Any) -> llm.LlmExtractor:
    options = {"retries": 2, "timeout_s": 10.0, "backoff_s": 0.01} | options
    return llm.LlmExtractor(endpoint.base_url, "qwen2.5:7b", **options)


@pytest.fixture
def endpoint() -> Iterator[FakeChatEndpoint]:
    with FakeChatEndpoint() as served:
        yield served


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_prompt_is_a_packaged_resource() -> None:
    prompt = llm.load_prompt()
    assert '"relatedEntities"' in prompt and '{"facts": [' in prompt
    for category in models.FactCategory:
        assert f"`{category.value}`" in prompt
    # what an imported chat holds, read as the rules read it (`heartbeat.turns`)
    assert "`**memory** (from ChatGPT: …): …`" in prompt and "hands over" in prompt
    # and what the rules keep: standing instructions, schedules, what someone is
    assert "Always use metric units." in prompt and "The trash pickup is on" in prompt
    assert "I'm vegetarian" in prompt


# -- the extractor over HTTP ---------------------------------------------------------


def test_good_json_becomes_candidates_and_the_request_is_openai_shaped(
    endpoint: FakeChatEndpoint,
) -> None:
    endpoint.push(fake_llm.facts(MARIA, PATEL))
    one = entry("Maria can't stand cilantro. Dr. Patel saw Leo yesterday.")
    result = extractor(endpoint).extract([one])
    assert result.failed == []
    assert result.candidates == [
        models_candidate("Maria hates cilantro", models.FactCategory.PREFERENCE, one, "Maria"),
        models_candidate(
            "Dr. Patel is Leo's doctor",
            models.FactCategory.RELATIONSHIP,
            one,
            "Dr. Patel",
            ("Leo",),
        ),
    ]
    [request] = endpoint.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "qwen2.5:7b"
    assert request.body["temperature"] == 0
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.message("system") == llm.load_prompt()
    assert request.user.startswith("Date: 2026-11-20 (Friday)\nTime: 08:00:00\nAgent: household\n")
    assert request.user.endswith(
        "\nEntry:\nMaria can't stand cilantro. Dr. Patel saw Leo yesterday."
    )
    assert "authorization" not in request.headers


def models_candidate(
    text: str,
    category: models.FactCategory,
    source: Entry,
    entity: str | None = None,
    related: tuple[str, ...] = (),
) -> Any:
    from vault_app.heartbeat.extraction import Candidate

    return Candidate(fact=text, category=category, entry=source, entity=entity, related=related)


@pytest.mark.parametrize(
    "content",
    [
        f"```json\n{PLAIN}\n```",
        f"Here you go:\n\n{PLAIN}\n\nHope that helps!",
        json.dumps([MARIA, PATEL]),
    ],
    ids=["fenced", "prose", "bare-list"],
)
def test_tolerant_answers_over_http(endpoint: FakeChatEndpoint, content: str) -> None:
    endpoint.push(fake_llm.chat(content))
    result = extractor(endpoint).extract([entry()])
    assert [c.fact for c in result.candidates] == [MARIA["fact"], PATEL["fact"]]
    assert result.failed == []


def test_garbage_fails_the_entry_with_a_precise_reason(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.chat("Sorry, I can't help with that."))
    one = entry()
    result = extractor(endpoint).extract([one])
    assert result.candidates == []
    assert result.failed == [
        (
            one,
            'the answer holds no JSON object or list (it starts "Sorry, I can\'t help with that.")',
        )
    ]
    assert len(endpoint.requests) == 1  # an unreadable answer is not retried


def test_a_cut_off_answer_says_the_model_hit_its_token_limit(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.chat('{"facts": [{"fact": "Maria dis', finish_reason="length"))
    [(_, reason)] = extractor(endpoint).extract([entry()]).failed
    assert reason.startswith("the model stopped at its token limit: the answer's JSON is malformed")


def test_an_oversized_answer_fails_its_entry(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.chat("x" * (llm.MAX_ANSWER_BYTES + 1)), fake_llm.facts(MARIA))
    first, second = entry(n=1), entry(n=2)
    result = extractor(endpoint).extract([first, second])
    url = f"{endpoint.base_url}/chat/completions"
    assert result.failed == [(first, f"the answer from {url} is over 1 MiB")]
    assert [c.entry for c in result.candidates] == [second]


def test_a_500_then_success_is_retried(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.error(500, "model is loading"), fake_llm.facts(MARIA))
    result = extractor(endpoint).extract([entry()])
    assert [c.fact for c in result.candidates] == [MARIA["fact"]]
    assert result.failed == []
    assert len(endpoint.requests) == 2


def test_a_dropped_connection_is_retried(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(Reply(drop=True), fake_llm.facts(MARIA))
    result = extractor(endpoint).extract([entry()])
    assert [c.fact for c in result.candidates] == [MARIA["fact"]]
    assert len(endpoint.requests) == 2


@pytest.mark.parametrize("retries", [0, 1, 3])
def test_500_always_fails_after_exactly_retries_plus_one_attempts(retries: int) -> None:
    with FakeChatEndpoint(lambda _: fake_llm.error(503, "overloaded")) as endpoint:
        one = entry()
        result = extractor(endpoint, retries=retries).extract([one])
        tries = "1 attempt" if retries == 0 else f"{retries + 1} attempts"
        assert result.failed == [
            (one, f"HTTP 503 from {endpoint.base_url}/chat/completions: overloaded, after {tries}")
        ]
        assert len(endpoint.requests) == retries + 1


@pytest.mark.timeout(20)  # the endpoint would answer after 60 s: the call must end long before
def test_a_silent_endpoint_times_out_twice_and_the_rest_is_not_sent(
    endpoint: FakeChatEndpoint,
) -> None:
    endpoint.push(*[Reply(delay=60, body={})] * 3)
    entries = [entry(n=n) for n in range(3)]
    result = extractor(endpoint, timeout_s=0.3).extract(entries)
    reason = f"no answer from {endpoint.base_url}/chat/completions within 0.3 s"
    assert result.failed == [
        (entries[0], reason),
        (entries[1], reason),
        (entries[2], f"not sent: the endpoint failed: {reason}"),
    ]
    assert len(endpoint.requests) == 2  # a timeout is not retried


@pytest.mark.timeout(20)  # the body would take over a minute to drip in
def test_an_answer_dripping_in_is_cut_off_after_timeout_s(endpoint: FakeChatEndpoint) -> None:
    dripping = fake_llm.facts(MARIA)
    endpoint.push(Reply(body=dripping.body, trickle=0.05))  # each read well within 0.5 s
    [(_, reason)] = extractor(endpoint, timeout_s=0.5).extract([entry()]).failed
    assert reason == f"no answer from {endpoint.base_url}/chat/completions within 0.5 s"


def test_an_entry_the_server_chokes_on_does_not_starve_the_others() -> None:
    def answer(request: Received) -> Reply:
        if "poison" in request.user:
            return fake_llm.error(500, "llama_decode failed")
        return fake_llm.facts(MARIA)

    with FakeChatEndpoint(answer) as endpoint:
        entries = [entry("fine", 0), entry("poison", 1), entry("fine", 2), entry("fine", 3)]
        result = extractor(endpoint, retries=1).extract(entries)
        assert [c.entry for c in result.candidates] == [entries[0], entries[2], entries[3]]
        url = f"{endpoint.base_url}/chat/completions"
        assert result.failed == [
            (entries[1], f"HTTP 500 from {url}: llama_decode failed, after 2 attempts")
        ]
        assert len(endpoint.requests) == 5


def test_a_refused_connection_fails_after_the_retries_and_the_rest_is_not_sent() -> None:
    port = closed_port()
    ex = llm.LlmExtractor(f"http://127.0.0.1:{port}/v1", "m", retries=1, backoff_s=0.01)
    first, second = entry(n=1), entry(n=2)
    result = ex.extract([first, second])
    reason = (
        f"cannot reach http://127.0.0.1:{port}/v1/chat/completions (the connection was refused "
        f"or the host is unknown), after 2 attempts"
    )
    assert result.failed == [
        (first, reason),
        (second, f"not sent: the endpoint failed: {reason}"),
    ]
    assert result.candidates == []


def test_an_endpoint_refusing_json_mode_is_asked_without_it_for_the_session(
    endpoint: FakeChatEndpoint,
) -> None:
    lm_studio = {"error": "'response_format.type' must be 'json_schema' or 'text'"}
    endpoint.push(
        Reply(400, lm_studio),  # LM Studio's own answer to JSON mode
        fake_llm.facts(MARIA),
        fake_llm.facts(PATEL),
    )
    ex = extractor(endpoint)
    result = ex.extract([entry(n=1), entry(n=2)])
    assert [c.fact for c in result.candidates] == [MARIA["fact"], PATEL["fact"]]
    assert ["response_format" in r.body for r in endpoint.requests] == [True, False, False]
    assert ex.json_mode is False


def test_any_400_on_the_first_try_is_asked_again_once_without_json_mode(
    endpoint: FakeChatEndpoint,
) -> None:
    endpoint.push(
        fake_llm.error(400, "invalid request"),
        fake_llm.facts(MARIA),
        fake_llm.error(400, "context length exceeded"),
    )
    ex = extractor(endpoint)
    first, second = entry(n=1), entry(n=2)
    result = ex.extract([first, second])
    assert [c.fact for c in result.candidates] == [MARIA["fact"]]
    # after a success, a 400 not about JSON mode is this entry's: failed, not retried
    assert result.failed == [
        (second, f"HTTP 400 from {endpoint.base_url}/chat/completions: context length exceeded")
    ]
    assert ["response_format" in r.body for r in endpoint.requests] == [True, False, False]


def test_a_model_refusing_temperature_0_is_asked_without_it(endpoint: FakeChatEndpoint) -> None:
    refusal = (
        "Unsupported value: 'temperature' does not support 0 with this model. "
        "Only the default (1) value is supported."
    )
    endpoint.push(fake_llm.error(400, refusal), fake_llm.facts(MARIA), fake_llm.facts(PATEL))
    result = extractor(endpoint).extract([entry(n=1), entry(n=2)])
    assert [c.fact for c in result.candidates] == [MARIA["fact"], PATEL["fact"]]
    assert [("temperature" in r.body, "response_format" in r.body) for r in endpoint.requests] == [
        (True, True),
        (False, True),
        (False, True),
    ]


def test_a_400_with_and_without_json_mode_fails_the_entry_and_keeps_json_mode(
    endpoint: FakeChatEndpoint,
) -> None:
    endpoint.push(fake_llm.error(400, "prompt too long"), fake_llm.error(400, "prompt too long"))
    ex = extractor(endpoint)
    [(_, reason)] = ex.extract([entry()]).failed
    assert reason == f"HTTP 400 from {endpoint.base_url}/chat/completions: prompt too long"
    assert len(endpoint.requests) == 2
    assert ex.json_mode is True


@pytest.mark.parametrize("retry_after", ["1", "Wed, 21 Oct 2015 07:28:00 GMT", "soon"])
def test_429_is_retried_after_a_small_retry_after(
    endpoint: FakeChatEndpoint, retry_after: str
) -> None:
    endpoint.push(
        fake_llm.error(429, "slow down", {"Retry-After": retry_after}), fake_llm.facts(MARIA)
    )
    result = extractor(endpoint).extract([entry()])
    assert [c.fact for c in result.candidates] == [MARIA["fact"]]
    assert len(endpoint.requests) == 2


def test_a_long_retry_after_fails_at_once_for_the_next_run(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.error(429, "quota", {"Retry-After": "3600"}))
    [(_, reason)] = extractor(endpoint).extract([entry()]).failed
    assert reason.endswith(": quota; it asks to wait 3600 s")
    assert len(endpoint.requests) == 1


def test_the_key_is_sent_as_a_bearer_token_only_when_set(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.facts(MARIA), fake_llm.facts(MARIA))
    extractor(endpoint, api_key=KEY).extract([entry()])
    extractor(endpoint).extract([entry()])
    with_key, without = endpoint.requests
    assert with_key.headers["authorization"] == f"Bearer {KEY}"
    assert "authorization" not in without.headers


def echo_the_key(status: int) -> fake_llm.Script:
    def answer(request: Received) -> Reply:
        return fake_llm.error(
            status, f"bad request, you sent {request.headers.get('authorization')}"
        )

    return answer


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 500])
def test_the_key_is_never_in_a_failure_reason(status: int) -> None:
    with FakeChatEndpoint(echo_the_key(status)) as endpoint:
        settings = config.HeartbeatSettings(
            llm_base_url=endpoint.base_url, llm_model="m", api_key_env="VAULT_TEST_KEY", retries=0
        )
        ex = llm.from_settings(settings, {"VAULT_TEST_KEY": KEY})
        assert ex is not None
        result = ex.extract([entry(n=1), entry(n=2)])
        assert endpoint.requests[0].headers["authorization"] == f"Bearer {KEY}"
        assert len(result.failed) == 2
        for _, reason in result.failed:
            assert KEY not in reason and f"HTTP {status}" in reason
        assert KEY not in repr(ex)


def test_a_refused_key_and_a_wrong_address_stop_the_batch(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.error(401, "Incorrect API key provided"))
    first, second = entry(n=1), entry(n=2)
    result = extractor(endpoint, api_key=KEY).extract([first, second])
    url = f"{endpoint.base_url}/chat/completions"
    reason = (
        f"HTTP 401 from {url}: the API key was refused: "
        f"check the variable [heartbeat] api_key_env names"
    )
    assert result.failed == [
        (first, reason),
        (second, f"not sent: the endpoint failed: {reason}"),
    ]

    wrong = llm.LlmExtractor(endpoint.base_url.removesuffix("/v1"), "m", retries=0)
    [(_, reason), _] = wrong.extract([first, second]).failed
    assert reason.startswith(
        f"HTTP 404 from {endpoint.base_url.removesuffix('/v1')}/chat/completions: "
    )
    assert "is the base URL the API root" in reason
    assert len(endpoint.requests) == 2


def test_not_an_openai_endpoint_is_said(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(Reply(body="<html>hello</html>", headers={"Content-Type": "text/html"}))
    [(_, reason)] = extractor(endpoint).extract([entry()]).failed
    assert reason == (
        f"{endpoint.base_url}/chat/completions does not answer with JSON "
        f"(it starts '<html>hello</html>'): is it an OpenAI-compatible endpoint?"
    )


def test_one_bad_answer_among_several_fails_only_its_entry(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(
        fake_llm.facts(MARIA),
        fake_llm.chat("¯\\_(ツ)_/¯"),
        fake_llm.chat('{"facts": []}'),
        fake_llm.facts(PATEL),
    )
    entries = [entry(n=n) for n in range(4)]
    result = extractor(endpoint).extract(entries)
    assert [(c.fact, c.entry) for c in result.candidates] == [
        (MARIA["fact"], entries[0]),
        (PATEL["fact"], entries[3]),
    ]
    assert [(e, r.split(" (")[0]) for e, r in result.failed] == [
        (entries[1], "the answer holds no JSON object or list")
    ]


def test_unicode_goes_out_and_comes_back_whole(endpoint: FakeChatEndpoint) -> None:
    text = "Zoë (our niece 👧) adores crème brûlée; Jürgen lives in Zürich — 東京 next year?"
    fact = {"fact": "Zoë loves crème brûlée", "category": "preference", "entity": "Zoë",
            "relatedEntities": ["Jürgen", "東京"]}  # fmt: skip
    endpoint.push(fake_llm.facts(fact))
    [candidate] = extractor(endpoint).extract([entry(text)]).candidates
    assert (candidate.fact, candidate.entity, candidate.related) == (
        "Zoë loves crème brûlée",
        "Zoë",
        ("Jürgen", "東京"),
    )
    assert endpoint.requests[0].user.endswith(text)


def test_relative_dates_are_resolved_and_the_gate_drops_what_the_model_let_through(
    endpoint: FakeChatEndpoint,
) -> None:
    endpoint.push(
        fake_llm.facts(
            {"fact": "Leo started school yesterday", "category": "milestone", "entity": "Leo"},
            {"fact": "The plumber comes next Tuesday", "category": "milestone"},
            {"fact": "Maybe we'll repaint the hall", "category": "context"},
            {"fact": "Good morning!", "category": "context"},
            {"fact": "Should we call the plumber?", "category": "context"},
        )
    )
    result = extractor(endpoint).extract([entry()])  # the entry's date: Friday 2026-11-20
    assert [c.fact for c in result.candidates] == [
        "Leo started school on 2026-11-19",
        "The plumber comes on 2026-11-24",
    ]


def test_recorded_answers_are_served_by_user_message() -> None:
    first, second, unknown = entry("Maria hates cilantro.", 1), entry("Dr. Patel", 2), entry(n=3)
    answers = {
        llm.user_message(first): json.dumps({"facts": [MARIA]}),
        llm.user_message(second): f"```json\n{json.dumps([PATEL])}\n```",
    }
    with FakeChatEndpoint(fake_llm.recorded(answers)) as endpoint:
        result = extractor(endpoint).extract([first, second, unknown])
    assert [(c.fact, c.entry) for c in result.candidates] == [
        (MARIA["fact"], first),
        (PATEL["fact"], second),
    ]
    [(failed, reason)] = result.failed
    assert failed == unknown and 'nothing recorded for "Date: 2026-11-20 (Friday)' in reason


def test_a_string_in_the_script_is_a_chat_answer_with_that_content() -> None:
    with FakeChatEndpoint([json.dumps([MARIA]), "nothing here"]) as endpoint:
        result = extractor(endpoint).extract([entry(n=1), entry(n=2)])
    assert [c.fact for c in result.candidates] == [MARIA["fact"]]
    assert [r.split(" (")[0] for _, r in result.failed] == [
        "the answer holds no JSON object or list"
    ]


def test_no_entries_sends_nothing(endpoint: FakeChatEndpoint) -> None:
    result = extractor(endpoint).extract([])
    assert (result.candidates, result.failed, endpoint.requests) == ([], [], [])


# -- from_settings -------------------------------------------------------------------


def test_from_settings() -> None:
    assert llm.from_settings(config.HeartbeatSettings()) is None
    settings = config.HeartbeatSettings(
        llm_base_url="http://127.0.0.1:11434/v1/", llm_model="llama3.2", timeout_s=5, retries=4
    )
    ex = llm.from_settings(settings, {})
    assert ex is not None
    assert (ex.name, str(ex.url), ex.timeout_s, ex.retries) == (
        "llm:llama3.2",
        "http://127.0.0.1:11434/v1/chat/completions",
        5.0,
        4,
    )


@pytest.mark.parametrize(
    ("options", "environ", "reason"),
    [
        ({"llm_model": ""}, {}, "no model is named for the endpoint (set [heartbeat] llm_model)"),
        (
            {"api_key_env": "NOPE"},
            {},
            "[heartbeat] api_key_env names 'NOPE', but that environment variable is not set",
        ),
        ({"llm_base_url": "localhost:11434/v1"}, {}, "is not an http(s) URL with a host"),
        ({"llm_base_url": "ftp://host/v1"}, {}, "is not an http(s) URL with a host"),
        ({"llm_base_url": "http://[::1/v1"}, {}, "the endpoint address is not a URL"),
        ({"api_key_env": "K"}, {"K": "ключ-0123"}, "the API key holds characters an HTTP"),
        ({"api_key_env": "K"}, {"K": "sk-one two"}, "the API key holds characters an HTTP"),
    ],
)
def test_from_settings_refuses_what_cannot_work(
    options: dict[str, str], environ: dict[str, str], reason: str
) -> None:
    settings = config.HeartbeatSettings(
        **({"llm_base_url": "http://h/v1", "llm_model": "m"} | options)
    )
    with pytest.raises(llm.LlmError) as caught:
        llm.from_settings(settings, environ)
    assert reason in str(caught.value)
    assert all(secret not in str(caught.value) for secret in environ.values())


def test_a_key_read_with_its_newline_is_sent_without_it(endpoint: FakeChatEndpoint) -> None:
    endpoint.push(fake_llm.facts(MARIA))
    settings = config.HeartbeatSettings(
        llm_base_url=endpoint.base_url, llm_model="m", api_key_env="K"
    )
    ex = llm.from_settings(settings, {"K": f"{KEY}\n"})
    assert ex is not None and ex.extract([entry()]).failed == []
    assert endpoint.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_password_in_the_address_is_not_shown() -> None:
    port = closed_port()
    ex = llm.LlmExtractor(f"http://user:{KEY}@127.0.0.1:{port}/v1", "m", retries=0)
    [(_, reason)] = ex.extract([entry()]).failed
    assert KEY not in reason and KEY not in repr(ex)
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in reason
