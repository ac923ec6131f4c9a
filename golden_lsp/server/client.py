"""What the client said it supports, read once at ``initialize``, and the answers fitted to it.

Clients differ, and an answer a client did not declare it takes is shown wrong or not at all:
eglot 1.9 declares ``relatedInformation: false`` and no ``disabledSupport``, and renders hovers as
plain text without markdown-mode; a client without ``codeActionLiteralSupport`` takes only
``Command``s; most clients do not know golden-lsp's own ``golden-lsp/status`` notification
(lsp-mode warns about each one). ``ClientSupport`` holds those facts, read strictly (what a client
does not declare, it does not get; the status is sent only to a client that asks for it with the
initialization option ``statusNotification: true``). The features build their answers in full;
``fit_code_actions`` fits a list of code actions to the client — a disabled action (``disabled.
reason``: why "Anchor here" cannot anchor) has its reason in its title too (Neovim lists a disabled
action by its title and "(disabled)" alone), and becomes a message for a client that cannot show it,
and a code action becomes a command applying its edit (``APPLY_EDIT_COMMAND``) for a client that
takes commands only. Hovers go through a ``markup.Markup`` for ``markdown_hover``; diagnostics
through ``convert`` with ``related_information``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from ..core.io.shown import shown

#: the command a code action becomes for a client that takes commands only: it applies the edit
APPLY_EDIT_COMMAND = "golden-lsp.applyEdit"
#: the initialization option a client sets to get the ``golden-lsp/status`` notification
STATUS_OPTION = "statusNotification"
#: clients (by ``clientInfo.name``) that count a position's character in code points, both ways,
#: while offering no position encoding (whose default is UTF-16): lsp-mode 8.0 (``"emacs"``) moves
#: ``forward-char`` by a position's character and sends ``point - line-beginning-position``
CODE_POINT_CLIENTS = frozenset({"emacs"})


def counted_encoding(params: types.InitializeParams) -> str | None:
    """The position encoding a client counts in without offering it (UTF-32 for lsp-mode), to be
    offered on its behalf; None for a client that offers encodings or counts UTF-16 as it should.
    Without it, lsp-mode shows a finding after a character outside the BMP (an emoji) one
    character late, and its edits after one land a character early in the server's text."""
    general = params.capabilities.general
    if general is not None and general.position_encodings:
        return None
    info = params.client_info
    return types.PositionEncodingKind.Utf32 if info is not None and info.name in CODE_POINT_CLIENTS else None


@dataclass(frozen=True)
class ClientSupport:
    """What the client takes (before ``initialize``: everything but the status)."""

    markdown_hover: bool = True
    code_action_literals: bool = True
    disabled_code_actions: bool = True
    related_information: bool = True
    apply_edit: bool = True
    #: workspace edits may create files (``resourceOperations`` holds ``create``)
    create_files: bool = True
    status_notifications: bool = False

    @classmethod
    def of(cls, params: types.InitializeParams) -> ClientSupport:
        caps = params.capabilities
        text = caps.text_document
        hover = text.hover if text else None
        action = text.code_action if text else None
        publish = text.publish_diagnostics if text else None
        options = params.initialization_options
        edits = caps.workspace.workspace_edit if caps.workspace else None
        return cls(
            markdown_hover=bool(hover and types.MarkupKind.Markdown in (hover.content_format or ())),
            code_action_literals=bool(action and action.code_action_literal_support),
            disabled_code_actions=bool(action and action.disabled_support),
            related_information=bool(publish and publish.related_information),
            apply_edit=bool(caps.workspace and caps.workspace.apply_edit),
            create_files=bool(
                edits
                and edits.document_changes
                and types.ResourceOperationKind.Create in (edits.resource_operations or ())
            ),
            status_notifications=isinstance(options, dict) and options.get(STATUS_OPTION) is True,
        )


def fit_code_actions(
    support: ClientSupport,
    actions: list[types.CodeAction],
    context: types.CodeActionContext,
    encode: Callable[[Any], Any],
) -> tuple[list[types.CodeAction | types.Command], list[str]]:
    """The answer to a code action request as the client takes it, and the messages to show it
    instead of the disabled actions it cannot show (none when the client says it asks on its own,
    ``triggerKind`` 2; the server does not repeat them to a client that says nothing, since some
    ask on every cursor move). ``encode`` makes an edit a command's JSON argument."""
    shows_disabled = support.code_action_literals and support.disabled_code_actions
    out: list[types.CodeAction | types.Command] = []
    messages: list[str] = []
    for action in actions:
        action = copy.copy(action)
        action.title = shown(action.title)  # a quote or a name in it never carries a control character
        if action.disabled is not None:
            action.disabled = types.CodeActionDisabled(shown(action.disabled.reason))
        if action.disabled is not None and not shows_disabled:
            if context.trigger_kind != types.CodeActionTriggerKind.Automatic:
                messages.append(f"{action.title}: {action.disabled.reason}")
            continue
        if (disabled := action.disabled) is not None:  # its title says why: Neovim lists it by title
            action = copy.copy(action)
            action.title = f"{action.title} — {disabled.reason}"
        if action.diagnostics and not support.related_information:
            action = copy.copy(action)
            action.diagnostics = [_without_related(d) for d in action.diagnostics or ()]
        if support.code_action_literals:
            out.append(action)
        elif action.edit is not None and support.apply_edit:
            out.append(types.Command(action.title, APPLY_EDIT_COMMAND, arguments=[encode(action.edit)]))
        elif action.edit is None and action.command is not None:
            out.append(
                types.Command(action.title, action.command.command, arguments=action.command.arguments)
            )
    return out, list(dict.fromkeys(messages))


def _without_related(d: types.Diagnostic) -> types.Diagnostic:
    d = copy.copy(d)
    d.related_information = None
    return d
