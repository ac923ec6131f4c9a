"""Personal data in a record's text: what ``query-pii`` finds and ``sample --redact`` replaces.

Queries drawn from traffic carry what users typed — their e-mail address, a phone number, a card
or account number — and a golden set that keeps them inherits the duty to protect them. This
module finds such identifiers in a string and replaces each with a typed placeholder (``<EMAIL>``).
It decides by checking, not by shape alone, so that a year, a version or a chunk count is not an
alarm: an e-mail address is ``local@domain.tld`` (a pattern: nothing more to check without mail);
a phone number is what Google's libphonenumber (``phonenumbers``) finds and holds valid for its
country, written internationally (``+44 20 …``) or, with a configured region, nationally; a payment
card is 13–19 digits of a card network's prefix whose Luhn check digit is right; an IBAN must pass
its country's format and its mod-97 check digits; a US social security number, dashed, must be in
an assigned range (both ``python-stdnum``); an IP address must parse (``ipaddress``), and a dotted quad of single digits is taken for a
section or version number. The findings
are the same for the editor, ``check`` and ``sample``, and run on the keystroke path, so nothing is
imported until a cheap pattern finds a candidate: a line with no ``@``, no digit and no colon costs
one regular-expression search, and the libraries load only for a run of digits long enough to be
a number of their kind. Their false alarms on real question sets are measured in docs/findings.md.
"""

from __future__ import annotations

import importlib
import ipaddress
import re
from dataclasses import dataclass

#: the kinds found, in the order an overlap is settled (an IBAN's digits are no phone number)
KINDS = ("email", "iban", "card", "ssn", "ip", "phone")
PLACEHOLDERS = {kind: f"<{kind.upper()}>" for kind in KINDS}
NAMES = {
    "email": "an e-mail address",
    "iban": "an IBAN",
    "card": "a payment card number",
    "ssn": "a US social security number",
    "ip": "an IP address",
    "phone": "a phone number",
}

_CANDIDATE = re.compile(r"[@\d:]")
_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.]*\d)")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")
#: seven or more digits, maybe with the separators numbers are written with: worth asking libphonenumber
_LONG_NUMBER = re.compile(r"\+?\(?\d(?:[\d\s().\-/]*\d){6,}")
#: card networks' first digits (IIN ranges): Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro
_CARD_PREFIX = re.compile(
    r"4|5[1-5]|2(?:22[1-9]|2[3-9]|[3-6]|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|35(?:2[89]|[3-8])|3(?:0[0-5]|[68])|5[06-9]|6"
)


@dataclass(frozen=True)
class Found:
    """One identifier in a string: its kind and its [start, end) there."""

    kind: str
    start: int
    end: int

    @property
    def placeholder(self) -> str:
        return PLACEHOLDERS[self.kind]


def find(text: str, region: str | None = None) -> list[Found]:
    """Every identifier in ``text``, in order, none overlapping another. ``region`` (an ISO 3166
    country code such as ``"US"``) also finds phone numbers written nationally, as that country
    writes them; without it only international ones (``+`` and a country code) are found."""
    if _CANDIDATE.search(text) is None:
        return []
    found: list[Found] = []
    rest = text  # what is left to search: each identifier found is blanked out for the next kinds
    for kind in KINDS:
        spans = _FINDERS[kind](rest, region)
        for start, end in spans:
            found.append(Found(kind, start, end))
            rest = rest[:start] + " " * (end - start) + rest[end:]
    return sorted(found, key=lambda f: f.start)


def redact(text: str, found: list[Found]) -> str:
    """``text`` with each of ``found`` (``find``'s answer for it) replaced by its placeholder."""
    out, at = [], 0
    for f in found:
        out.append(text[at : f.start])
        out.append(f.placeholder)
        at = f.end
    out.append(text[at:])
    return "".join(out)


def _emails(text: str, region: str | None) -> list[tuple[int, int]]:
    if "@" not in text:
        return []
    return [m.span() for m in _EMAIL.finditer(text)]


def _valid(text: str, pattern: re.Pattern[str], checker: str) -> list[tuple[int, int]]:
    """The matches of ``pattern`` that ``checker`` (a python-stdnum module, imported only when there
    is a match) holds valid."""
    spans = [m.span() for m in pattern.finditer(text)]
    if not spans:
        return []
    module = importlib.import_module(checker)
    return [(a, b) for a, b in spans if module.is_valid(text[a:b])]


def _ibans(text: str, region: str | None) -> list[tuple[int, int]]:
    return _valid(text, _IBAN, "stdnum.iban")


def _cards(text: str, region: str | None) -> list[tuple[int, int]]:
    spans = []
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits):
            spans.append((m.span(), digits))
    if not spans:
        return []
    from stdnum import luhn

    return [span for span, digits in spans if luhn.is_valid(digits)]


def _ssns(text: str, region: str | None) -> list[tuple[int, int]]:
    return _valid(text, _SSN, "stdnum.us.ssn")


def _ips(text: str, region: str | None) -> list[tuple[int, int]]:
    out = []
    for pattern in (_IPV4, _IPV6) if ":" in text else (_IPV4,):
        for m in pattern.finditer(text):
            try:
                ipaddress.ip_address(m.group())
            except ValueError:
                continue
            if pattern is _IPV4 and max(map(len, m.group().split("."))) == 1:
                continue  # 3.4.5.6 is a section or a version far more often than an address
            out.append(m.span())
    return out


def _phones(text: str, region: str | None) -> list[tuple[int, int]]:
    if _LONG_NUMBER.search(text) is None:
        return []
    import phonenumbers

    matcher = phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)
    return [(m.start, m.end) for m in matcher]


_FINDERS = {
    "email": _emails,
    "iban": _ibans,
    "card": _cards,
    "ssn": _ssns,
    "ip": _ips,
    "phone": _phones,
}
