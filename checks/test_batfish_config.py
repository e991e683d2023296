"""Parsing, references and dead ACL lines of the rendered configs (live Batfish)."""

from assertions import (
    assert_configs_parse,
    assert_no_undefined_references,
    assert_no_unreachable_acl_lines,
)


def test_configs_parse(need, answers):
    assert assert_configs_parse(need(answers.file_status, "fileParseStatus"),
                                answers.parse_warnings, answers.init_issues)


def test_no_undefined_references(need, answers, configs):
    assert assert_no_undefined_references(
        need(answers.undefined_references, "undefinedReferences"), configs)


def test_no_unreachable_acl_lines(need, answers):
    assert assert_no_unreachable_acl_lines(
        need(answers.filter_lines, "filterLineReachability"))
