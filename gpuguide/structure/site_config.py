"""The site's configuration, ``data/site.yaml`` (``SiteConfig``, a ``LanguageConfig`` per language),
and the use cases' menu, ``data/use_cases.yaml`` (``UseCaseFile``)."""

from __future__ import annotations

from typing import Annotated, Literal

from babel import Locale, UnknownLocaleError
from pydantic import AfterValidator, Field, ValidationInfo, field_validator

from gpuguide.structure.field_types import Identifier, SourceUrl
from gpuguide.structure.schema import Strict, pattern_hint


def _known_locale(value: str) -> str:
    try:
        Locale.parse(value)
    except (ValueError, UnknownLocaleError):
        raise ValueError(f"unknown locale `{value}`; use a CLDR locale such as fr_FR or en_US") from None
    return value


#: A language code is a URL folder (``/fr/``): a BCP 47 language tag, never a path.
LanguageCode = Annotated[str, Field(pattern=pattern_hint(
    r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$", "use a language tag such as `fr` or `pt-br` (lower case)"))]


class LanguageConfig(Strict):
    locale: Annotated[str, AfterValidator(_known_locale)]
    """the CLDR locale (`fr_FR`, `en_US`) that writes numbers, prices, units and picks plural forms"""
    typography: Literal["plain", "french"] = "plain"
    """punctuation spacing: `french` puts no-break spaces before `: ; ! ?` and inside « »"""
    sign_up_url: SourceUrl | None = None
    """where the "create your account" call to action leads, in this language, https://; left out: that call to action is not shown"""
    providers_url: SourceUrl | None = None
    """where the call to action for GPU server owners (the provider programme) leads, in this language, https://; left out: not shown"""
    bid_url: Annotated[str, Field(pattern=pattern_hint(
        r"^https://\S*\{gpu\}\S*$", "write the bid page's address with `{gpu}` where the GPU's id goes"))] | None = None
    """the marketplace's page to place a bid for one GPU, in this language, with `{gpu}` for its id
    (`https://…/market/{gpu}/bid`); a GPU without a live offer links to it ("No offer yet — place a bid"); left out: plain text"""


class SiteConfig(Strict):
    base_url: SourceUrl
    """the address the site is published at (canonical links, sitemap), https://"""
    site_name: str
    """the site's name, in titles and the header"""
    languages: dict[LanguageCode, LanguageConfig] = Field(min_length=1)
    """each language: its code (the URL prefix, a language tag such as `fr`) and its settings, in menu order"""
    default_language: str
    """the language pages are written in first; translations follow it (one of `languages`)"""
    market: Literal["pre-launch", "open"] = "pre-launch"
    """the marketplace's state: `pre-launch` (accounts open, renting from launch day) or `open`; the sign-up box and the price notes follow it"""
    sharing_cards: Literal["per page", "site"] = "per page"
    """the image a link to a page shows when shared (`og:image`): `per page`, each page's own card (its title and key figure, drawn at build time), or `site`, the site's one card (its name and home pages' titles) on every page"""

    @field_validator("default_language")
    @classmethod
    def _default_is_listed(cls, value: str, info: ValidationInfo) -> str:
        languages = info.data.get("languages")
        if languages is not None and value not in languages:
            raise ValueError(f"default_language `{value}` is not in languages ({', '.join(languages)})")
        return value


class UseCaseFile(Strict):
    use_cases: list[Identifier]
    """the use cases' ids, in the order menus list them"""
