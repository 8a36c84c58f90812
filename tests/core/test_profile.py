"""profile.json: a flat string map, refused precisely when it is not one."""

from __future__ import annotations

import pytest

from vault_app.core import errors, profile


def test_round_trip_keeps_order_and_unicode() -> None:
    text = '{\n  "name": "Zoé",\n  "timezone": "Europe/Paris"\n}\n'
    data = profile.load_text(text)
    assert list(data) == ["name", "timezone"]
    assert profile.dumps(data) == text


def test_empty_file_is_an_empty_profile() -> None:
    assert profile.load_text("") == {} and profile.load_text("  \n") == {}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[1, 2]", "not an array"),
        ('{"a": 1}', "not a number"),
        ('{"a": {"b": "c"}}', "not an object"),
        ('{"a": null}', "not null"),
        ('{"a": "x", "a": "y"}', "appears twice"),
        ('{"a": "x",', "not JSON"),
    ],
)
def test_non_flat_or_non_string_profiles_are_refused_with_the_place(text: str, reason: str) -> None:
    with pytest.raises(errors.CorruptFileError, match=reason) as caught:
        profile.load_text(text, "agents/a/profile.json")
    assert str(caught.value).startswith("agents/a/profile.json")


def test_set_keeps_the_place_of_a_key_and_appends_new_ones() -> None:
    data = {"a": "1", "b": "2"}
    assert list(profile.set_key(data, "a", "9")) == ["a", "b"]
    assert profile.set_key(data, "c", "3") == {"a": "1", "b": "2", "c": "3"}
    assert data == {"a": "1", "b": "2"}


def test_delete_by_key_names_the_keys_when_absent() -> None:
    assert profile.delete_key({"a": "1", "b": "2"}, "a") == {"b": "2"}
    with pytest.raises(errors.NotFoundError, match="keys: 'a'"):
        profile.delete_key({"a": "1"}, "zz")


def test_values_that_utf8_cannot_hold_are_refused() -> None:
    with pytest.raises(errors.VaultError, match="UTF-8"):
        profile.set_key({}, "k", "bad \ud800")


@pytest.mark.parametrize("key", ["", " name", "two\nlines", "k" * 201, "\udc80"])
def test_bad_keys_are_refused(key: str) -> None:
    with pytest.raises(errors.VaultError):
        profile.set_key({}, key, "v")


def test_markdown_list() -> None:
    rendered = profile.as_markdown({"name": "Zoé", "address": "1 rue X\n75001 Paris", "empty": ""})
    assert rendered == "- **name**: Zoé\n- **address**: 1 rue X\n  75001 Paris\n- **empty**:"
    assert profile.as_markdown({}) == ""
