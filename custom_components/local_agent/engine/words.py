"""Words that mean yes, no, digits, signs and units, in every language: one table each.

The engine reads a boolean argument with the single yes and no words (and true/false, on/off,
1/0); the safety gate reads a person's answer to its question with the whole phrases, the
assent that may go with them, PINs said as number words and the words that may frame a PIN.
Entries are written as people write them; `fold` (lower case, no accents, apostrophes and
hyphens as one form) is applied to the tables and to what is read alike, so "Sí", "si" and
"SI" are one word.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from functools import lru_cache
import re
from typing import Final
import unicodedata

RIGHT_QUOTE = "\u2019"

# The one word for yes and for no in each language.
YES_WORD: Mapping[str, str] = {
    "en": "yes", "de": "ja", "fr": "oui", "es": "sí", "it": "sì", "nl": "ja", "pt": "sim",
}  # fmt: skip
NO_WORD: Mapping[str, str] = {
    "en": "no", "de": "nein", "fr": "non", "es": "no", "it": "no", "nl": "nee", "pt": "não",
}  # fmt: skip
LANGUAGES = tuple(YES_WORD)

# Whole answers that mean yes or no.
_YES: Mapping[str, tuple[str, ...]] = {
    "en": (
        "yes", "yeah", "yep", "yup", "yea", "ya", "yes please", "sure", "sure thing", "confirm",
        "confirmed", "i confirm", "do it", "do so", "ok", "okay", "go", "go ahead", "go for it",
        "yes do it", "please do", "correct", "affirmative", "of course", "absolutely",
        "definitely", "certainly", "exactly", "alright", "all right", "do that", "proceed",
        "continue", "go on", "i'm sure", "i am sure", "i'm certain", "i am certain", "i do",
        "you can", "why not", "sounds good", "that's right", "that is right", "that's correct",
        "that is correct", "that's fine", "that is fine", "fine", "right", "roger",
        "let's do it", "lets do it", "let's go",
    ),
    "de": (
        "ja", "ja bitte", "jawohl", "jep", "jo", "bestätigen", "bestätige", "bestätigt",
        "ich bestätige", "mach das", "mach es", "mach", "mach weiter", "tu es", "ok", "okay",
        "genau", "klar", "sicher", "natürlich", "in ordnung", "los", "auf jeden fall", "passt",
        "stimmt", "richtig", "weiter", "ich bin sicher", "ganz sicher", "na klar",
    ),
    "fr": (
        "oui", "oui merci", "d'accord", "confirmer", "je confirme", "confirme", "vas-y",
        "allez-y", "allez", "fais-le", "faites-le", "ok", "bien sûr", "c'est bon", "c'est ça",
        "tout à fait", "exactement", "parfait", "bien", "ouais", "je suis sûr", "je suis sûre",
        "j'en suis sûr", "j'en suis sûre",
    ),
    "es": (
        "sí", "si", "sí por favor", "confirmar", "confirmo", "adelante", "vale", "ok",
        "hazlo", "dale", "claro", "claro que sí", "de acuerdo", "por supuesto", "venga",
        "perfecto", "exacto", "correcto", "seguro", "estoy seguro", "estoy segura",
    ),
    "it": (
        "sì", "si", "confermo", "conferma", "certo", "certamente", "va bene", "ok", "fallo",
        "procedi", "vai", "vai pure", "d'accordo", "esatto", "perfetto", "giusto", "sicuro",
        "sono sicuro", "sono sicura", "certo che sì", "certo che si", "assolutamente sì",
        "assolutamente si",
    ),
    "nl": (
        "ja", "ja graag", "jazeker", "zeker", "bevestig", "bevestigen", "doe maar", "doe het",
        "oké", "ok", "ga je gang", "ga door", "prima", "natuurlijk", "akkoord", "klopt",
        "is goed", "goed", "ja hoor", "zeker weten", "ik weet het zeker", "ga maar",
    ),
    "pt": (
        "sim", "confirmo", "confirmar", "pode", "pode sim", "ok", "pode fazer", "faça", "faz",
        "claro", "tudo bem", "com certeza", "certo", "exato", "perfeito", "vai", "tenho certeza",
        "manda ver", "beleza", "faz isso", "faça isso", "avança", "avance", "pode avançar",
        "isso mesmo",
    ),
}  # fmt: skip
_NO: Mapping[str, tuple[str, ...]] = {
    "en": (
        "no", "nope", "nah", "negative", "no thanks", "no thank you", "cancel", "cancel it",
        "cancel that", "abort", "stop", "stop it", "don't", "do not", "don't do it",
        "do not do it", "don't do that", "do not do that", "never mind", "forget it",
        "leave it", "not now", "not right now", "not yet", "no way", "wait", "hold on",
        "not sure", "i'm not sure", "i am not sure", "i changed my mind", "changed my mind",
        "hell no", "not really", "i said no", "later", "maybe later", "not today",
        # Said as people say them: a sarcastic yes, a grunted no ("uh-uh").
        "yeah right", "uh uh", "yeah yeah",
    ),
    "de": (
        "nein", "nee", "nein danke", "abbrechen", "abbruch", "stopp", "stop", "halt", "warte",
        "nicht", "nicht jetzt", "doch nicht", "lass es", "lieber nicht", "auf keinen fall",
        "nö", "vergiss es", "lass mal", "lass das", "später", "noch nicht", "vielleicht später",
        # The impatient, sarcastic yes ("ja ja, schon gut").
        "ja ja", "jaja",
    ),
    "fr": (
        "non", "non merci", "annuler", "annule", "stop", "arrête", "attends", "pas maintenant",
        "surtout pas", "laisse tomber", "oublie", "oublie ça", "laisse", "plus tard",
        "pas encore", "peut-être plus tard",
    ),
    "es": (
        "no", "no gracias", "cancelar", "cancela", "para", "espera", "ahora no", "mejor no",
        "déjalo", "olvídalo", "olvidalo", "déjalo estar", "más tarde", "todavía no",
        "quizás más tarde", "tal vez más tarde",
        # "Already", "enough!" or a sarcastic "ya, claro": English's "ya" is no yes here (read
        # both ways, it is neither).
        "ya",
    ),
    "it": (
        "no", "no grazie", "annulla", "stop", "ferma", "aspetta", "non ora", "meglio di no",
        "lascia stare", "lascia perdere", "annullare", "lascia", "più tardi", "non ancora",
        "forse più tardi", "magari più tardi", "certo che no", "assolutamente no",
    ),
    "nl": (
        "nee", "nee dank je", "annuleer", "stop", "wacht", "niet nu", "liever niet", "laat maar",
        "vergeet het", "laat maar zitten", "annuleren", "later", "nog niet", "misschien later",
        # The impatient, sarcastic yes ("ja ja, het zal wel").
        "ja ja", "jaja",
    ),
    "pt": (
        "não", "nao", "cancelar", "cancela", "pare", "para", "espera", "agora não", "melhor não",
        "deixa", "esquece", "deixa pra lá", "deixa para lá", "não quero", "mais tarde",
        "ainda não", "talvez mais tarde", "deixa estar", "não faças isso", "não faça isso",
    ),
}  # fmt: skip
# Politeness, assent and hesitation ("uh", "äh") that may go with a yes or a no without
# asking for anything new.
_COURTESY: Mapping[str, tuple[str, ...]] = {
    "en": (
        "please", "thanks", "thank you", "thanks a lot", "now", "right now", "indeed",
        "oh", "ah", "well", "and", "then", "sir", "ma'am", "uh", "um", "uhm", "erm", "hmm",
        "thank you very much", "thank you so much", "thanks so much", "many thanks",
    ),
    "de": ("bitte", "danke", "gerne", "gern", "jetzt", "schon", "bitte schön", "danke schön",
           "und", "dann", "äh", "ähm", "hm", "vielen dank", "danke sehr"),
    "fr": ("s'il vous plaît", "s'il te plaît", "merci", "volontiers", "maintenant", "et",
           "alors", "euh", "ben", "bah", "merci beaucoup"),
    "es": ("por favor", "gracias", "ahora", "y", "entonces", "eh", "em", "pues", "bueno",
           "muchas gracias"),
    "it": ("per favore", "grazie", "ora", "adesso", "e", "allora", "ehm", "beh", "grazie mille"),
    "nl": ("graag", "alsjeblieft", "alstublieft", "dank je", "bedankt", "nu", "en", "dan",
           "eh", "ehm", "nou", "dank je wel", "dank u", "dank u wel", "hoor"),
    "pt": ("por favor", "obrigado", "obrigada", "agora", "e", "então", "hum", "bem",
           "muito obrigado", "muito obrigada"),
}  # fmt: skip
# What joins more to a reply ("yes, and ..."): a reply that ends on it was cut off before
# what it joins, which may ask for more ("yes, and then lock it again").
_JOINING: Mapping[str, tuple[str, ...]] = {
    "en": ("and", "and then"),
    "de": ("und", "und dann"),
    "fr": ("et", "et puis", "et alors"),
    "es": ("y", "e", "y luego", "y entonces"),
    "it": ("e", "ed", "e poi", "e allora"),
    "nl": ("en", "en dan"),
    "pt": ("e", "e depois", "e então"),
}
# Yes phrases people ask as a question ("Sure, why not?"): their question mark asks nothing.
_ASKED_YES: Mapping[str, tuple[str, ...]] = {"en": ("why not",)}
# Words that may frame a PIN said as an answer ("my code is 4711", "der PIN lautet 4711"):
# none of them asks for anything.
_PIN_FRAMING: Mapping[str, tuple[str, ...]] = {
    "en": ("my", "the", "pin", "code", "pin code", "passcode", "password", "number", "is",
           "it's", "it is", "its", "here", "here it is", "that's", "that is"),
    "de": ("mein", "meine", "der", "die", "das", "pin", "code", "pincode", "geheimzahl",
           "nummer", "passwort", "ist", "lautet", "hier", "es"),
    "fr": ("mon", "ma", "le", "la", "code", "pin", "code pin", "mot de passe", "numéro",
           "est", "c'est", "voici", "voilà"),
    "es": ("mi", "el", "la", "código", "pin", "clave", "contraseña", "número", "es", "aquí",
           "aquí está"),
    "it": ("il", "mio", "la", "mia", "codice", "pin", "password", "numero", "è", "ecco"),
    "nl": ("mijn", "de", "het", "pin", "code", "pincode", "wachtwoord", "nummer", "is",
           "hier", "dat is"),
    "pt": ("meu", "minha", "o", "a", "código", "pin", "senha", "número", "é", "aqui",
           "aqui está"),
}  # fmt: skip
# Digits said as words (a PIN: "four seven one one", "vier sieben eins eins").
_DIGITS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "en": (("zero", "oh"), ("one",), ("two",), ("three",), ("four",), ("five",), ("six",),
           ("seven",), ("eight",), ("nine",)),
    "de": (("null",), ("eins",), ("zwei", "zwo"), ("drei",), ("vier",), ("fünf",), ("sechs",),
           ("sieben",), ("acht",), ("neun",)),
    "fr": (("zéro",), ("un", "une"), ("deux",), ("trois",), ("quatre",), ("cinq",), ("six",),
           ("sept",), ("huit",), ("neuf",)),
    "es": (("cero",), ("uno", "una"), ("dos",), ("tres",), ("cuatro",), ("cinco",), ("seis",),
           ("siete",), ("ocho",), ("nueve",)),
    "it": (("zero",), ("uno", "una"), ("due",), ("tre",), ("quattro",), ("cinque",), ("sei",),
           ("sette",), ("otto",), ("nove",)),
    "nl": (("nul",), ("een", "één"), ("twee",), ("drie",), ("vier",), ("vijf",), ("zes",),
           ("zeven",), ("acht",), ("negen",)),
    "pt": (("zero",), ("um", "uma"), ("dois", "duas"), ("três",), ("quatro",), ("cinco",),
           ("seis",), ("sete",), ("oito",), ("nove",)),
}  # fmt: skip


def fold(text: str) -> str:
    """Lower case without accents; typographic apostrophes as ', hyphens and spaces as one."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace(RIGHT_QUOTE, "'"))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.replace("-", " ").split())


def words(text: str) -> list[str]:
    """Split folded text into words ("d'accord" is one) and single digits (any script)."""
    found: list[str] = []
    word = ""
    for ch in [*fold(text), " "]:
        digit = unicodedata.digit(ch, None)
        if ch.isalpha() or (ch == "'" and word):
            word += ch
            continue
        if word.strip("'"):
            found.append(word.strip("'"))
        word = ""
        if digit is not None:
            found.append(str(digit))
    return found


def base_language(language: str) -> str:
    """Return "de" for "de-CH"."""
    return language.split("-", maxsplit=1)[0].lower()


class PhraseTable:
    """Phrases of one kind in every language, read by a language tag ("de-CH" reads "de")."""

    __slots__ = ("_table",)

    def __init__(self, table: Mapping[str, tuple[str, ...]]) -> None:
        self._table = table

    def __call__(self, language: str) -> frozenset[str]:
        """Return the phrases of a language, folded."""
        return frozenset(
            " ".join(words(phrase)) for phrase in self._table.get(base_language(language), ())
        )


# Answers that mean yes, and that mean no.
yes_phrases: Final = PhraseTable(_YES)
no_phrases: Final = PhraseTable(_NO)
# Politeness and assent that go with an answer.
courtesy_phrases: Final = PhraseTable(_COURTESY)
# What joins more to a reply ("and", "und dann").
joining_phrases: Final = PhraseTable(_JOINING)
# Yes phrases whose question mark asks nothing.
asked_yes_phrases: Final = PhraseTable(_ASKED_YES)
# Words that may frame a PIN said as an answer.
pin_framing_phrases: Final = PhraseTable(_PIN_FRAMING)


def _digit_words() -> dict[str, str]:
    table: dict[str, str] = {}
    for spellings in _DIGITS.values():
        for digit, names in enumerate(spellings):
            for name in names:
                table[fold(name)] = str(digit)
    return table


# Every language's number words at once: a PIN is read (and masked) whatever the language.
DIGIT_WORDS: Mapping[str, str] = _digit_words()


# Numbers beyond the digits (teens, tens, hundred, thousand) and the "and" inside a number
# ("cuarenta y siete"): a PIN said as a number is never read as one (see is_number_word).
_NUMBERS: Mapping[str, tuple[str, ...]] = {
    "en": ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
           "eighteen", "nineteen", "twenty", "thirty", "forty", "fourty", "fifty", "sixty",
           "seventy", "eighty", "ninety", "hundred", "thousand"),
    "de": ("zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn",
           "achtzehn", "neunzehn", "zwanzig", "dreißig", "dreissig", "vierzig", "fünfzig",
           "sechzig", "siebzig", "achtzig", "neunzig", "hundert", "tausend"),
    "fr": ("dix", "onze", "douze", "treize", "quatorze", "quinze", "seize", "vingt", "vingts",
           "trente", "quarante", "cinquante", "soixante", "septante", "huitante", "nonante",
           "cent", "cents", "mille"),
    "es": ("diez", "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete",
           "dieciocho", "diecinueve", "veinte", "veinti", "treinta", "cuarenta", "cincuenta",
           "sesenta", "setenta", "ochenta", "noventa", "cien", "ciento", "mil"),
    "it": ("dieci", "undici", "dodici", "tredici", "quattordici", "quindici", "sedici",
           "diciassette", "diciotto", "diciannove", "venti", "trenta", "quaranta", "cinquanta",
           "sessanta", "settanta", "ottanta", "novanta", "cento", "mille"),
    "nl": ("tien", "elf", "twaalf", "dertien", "veertien", "vijftien", "zestien", "zeventien",
           "achttien", "negentien", "twintig", "dertig", "veertig", "vijftig", "zestig",
           "zeventig", "tachtig", "negentig", "honderd", "duizend"),
    "pt": ("dez", "onze", "doze", "treze", "catorze", "quatorze", "quinze", "dezesseis",
           "dezasseis", "dezessete", "dezassete", "dezoito", "dezenove", "dezanove", "vinte",
           "trinta", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa", "cem",
           "cento", "mil"),
}  # fmt: skip
# Spanish and Portuguese hundreds, each one word in either gender ("trescientas", "duzentos").
_HUNDREDS: Mapping[int, tuple[str, ...]] = {
    200: ("doscient", "duzent"), 300: ("trescient", "trezent"),
    400: ("cuatrocient", "quatrocent"), 500: ("quinient", "quinhent"),
    600: ("seiscient", "seiscent"), 700: ("setecient", "setecent"),
    800: ("ochocient", "oitocent"), 900: ("novecient", "novecent"),
}  # fmt: skip
HUNDREDS: Final[Mapping[str, int]] = {
    head + ending: value
    for value, heads in _HUNDREDS.items()
    for head in heads
    for ending in ("os", "as")
}
NUMBER_WORDS: Final = frozenset(
    [*(fold(word) for names in _NUMBERS.values() for word in names), *HUNDREDS]
)
# What joins the parts of a number, written together ("siebenundvierzig") or apart.
NUMBER_JOINERS: Final = frozenset({"and", "und", "et", "y", "e", "en", "ën"})
# What a number written as one word is made of beyond digits and number words, never a number
# alone: German "ein" ("einundzwanzig", "einhundert"), Italian tens before a vowel ("ventuno",
# "quarantotto"), "mila" ("duemila"), the hundreds of Spanish and Portuguese ("doscientos",
# "quatrocentos") and Spanish "un" ("veintiún").
_NUMBER_PARTS: Mapping[str, tuple[str, ...]] = {
    "de": ("ein",),
    "es": ("un", "cientos", "cientas"),
    "it": ("vent", "trent", "quarant", "cinquant", "sessant", "settant", "ottant", "novant",
           "cent", "mila"),
    "pt": ("centos", "centas"),
}  # fmt: skip
# The hundreds of Spanish and Portuguese by language, each one word ("quinientos").
_HUNDRED_WORDS: Mapping[str, tuple[str, ...]] = {
    language: tuple(
        heads[index] + ending for heads in _HUNDREDS.values() for ending in ("os", "as")
    )
    for index, language in enumerate(("es", "pt"))
}
# Each language's pieces of a number written as one word: pieces of two languages never make
# one ("sei" + "ten" is the German "seiten").
_PIECES: Mapping[str, frozenset[str]] = {
    language: frozenset(
        fold(piece)
        for piece in (
            *(name for names in digits for name in names),
            *_NUMBERS[language],
            *_HUNDRED_WORDS.get(language, ()),
            *_NUMBER_PARTS.get(language, ()),
        )
        if len(fold(piece)) > 1
    )
    for language, digits in _DIGITS.items()
}
# Longer than any number a person says as one word ("zweihundertsiebenundvierzigtausend…").
_LONGEST_NUMBER_WORD: Final = 64


# The first ten places in words, as a voice says "1st", "2e" or "3º" ("First Floor" is
# said as "1st Floor" is). German's by stem and ending ("erste", "zweiten"); never "achter",
# which is also Dutch for "back" ("Achter deur" is the back door, not the eighth).
_PLACES: Final = (
    "first premier première primero primera primer primo prima eerste primeiro primeira",
    "second deuxième seconde segundo segunda secondo seconda tweede",
    "third troisième tercero tercera tercer terzo terza derde terceiro terceira",
    "fourth quatrième cuarto cuarta quarto quarta vierde",
    "fifth cinquième quinto quinta vijfde",
    "sixth sixième sexto sexta sesto sesta zesde",
    "seventh septième séptimo séptima settimo settima zevende sétimo sétima",
    "eighth huitième octavo octava ottavo ottava achtste oitavo oitava",
    "ninth neuvième noveno novena nono nona negende",
    "tenth dixième décimo décima tiende",
)
_GERMAN_STEMS: Final = (
    "erst", "zweit", "dritt", "viert", "fünft", "sechst", "siebt", "acht", "neunt", "zehnt",
)  # fmt: skip
ORDINAL_WORDS: Final[Mapping[str, int]] = {
    **{fold(word): value for value, words in enumerate(_PLACES, 1) for word in words.split()},
    **{
        fold(f"{stem}{ending}"): value
        for value, stem in enumerate(_GERMAN_STEMS, 1)
        for ending in ("e", "er", "es", "en", "em")
        if f"{stem}{ending}" != "achter"
    },
}
# A place written in digits and the language's ending ("1st", "2nd", "1er", "2e", "2ème",
# "1o" as NFKC writes "1º", "1ª", "1ste", "2de", "2te"), folded.
ORDINAL_DIGITS: Final = re.compile(r"(\d+)(?:st|nd|rd|th|er|re|ere|e|eme|nde|o|a|ste|de|te)")


def is_number_word(word: str) -> bool:
    """Whether a folded word is a number other than a digit: "eleven", "einundzwanzig".

    A number written as one word is two or more of one language's number pieces, a joiner
    maybe between two ("quarantasette", "zevenenveertig", "zweihundertvierzig", "doscientos").
    """
    if word in NUMBER_WORDS:
        return True
    return len(word) <= _LONGEST_NUMBER_WORD and any(
        _pieces_after_one(word, language) for language in _PIECES
    )


@lru_cache(maxsize=1024)
def _pieces_after_one(word: str, language: str) -> bool:
    """Whether the word is a piece of the language's numbers followed by more of them."""
    pieces = _PIECES[language]
    return any(
        word.startswith(piece) and _more_pieces(word[len(piece) :], language)
        for piece in pieces
        if len(word) > len(piece)
    )


@lru_cache(maxsize=1024)
def _more_pieces(rest: str, language: str) -> bool:
    """Whether the rest of a word is (a joiner and) one or more of the language's pieces."""
    pieces = _PIECES[language]
    parts = [rest, *(rest[len(j) :] for j in NUMBER_JOINERS if rest.startswith(j) and rest != j)]
    return any(part in pieces or _pieces_after_one(part, language) for part in parts)


def _boolean_words(pairs: Iterable[tuple[str, bool]]) -> dict[str, bool]:
    return {fold(word): value for word, value in pairs}


# A boolean argument: true/false, on/off, 1/0 and each language's one word for yes and no.
BOOLEAN_WORDS: Mapping[str, bool] = _boolean_words(
    [
        *((word, True) for word in ("true", "on", "1", *YES_WORD.values())),
        *((word, False) for word in ("false", "off", "0", *NO_WORD.values())),
    ]
)


# How a voice says a number's minus sign and its unit, in each language (turn/spoken_text):
# a name is compared as heard with these words beside its numbers (home/entity_view).
MINUS_WORD: Final = {
    "en": "minus", "de": "minus", "fr": "moins", "es": "menos", "it": "meno", "nl": "min",
    "pt": "menos",
}  # fmt: skip
_DEGREES: Final = {
    "en": ("degree", "degrees"), "de": ("Grad", "Grad"), "fr": ("degré", "degrés"),
    "es": ("grado", "grados"), "it": ("grado", "gradi"), "nl": ("graad", "graden"),
    "pt": ("grau", "graus"),
}  # fmt: skip
# Each unit as the language says it, after one and after any other number.
QUANTITY_WORDS: Final[Mapping[str, Mapping[str, tuple[str, str]]]] = {
    "%": {
        "en": ("percent", "percent"), "de": ("Prozent", "Prozent"),
        "fr": ("pour cent", "pour cent"), "es": ("por ciento", "por ciento"),
        "it": ("per cento", "per cento"), "nl": ("procent", "procent"),
        "pt": ("por cento", "por cento"),
    },
    "°": _DEGREES,
    "°C": {lang: (f"{one} Celsius", f"{more} Celsius") for lang, (one, more) in _DEGREES.items()},
    "°F": {
        lang: (f"{one} Fahrenheit", f"{more} Fahrenheit") for lang, (one, more) in _DEGREES.items()
    },
    "K": {
        "en": ("kelvin", "kelvin"), "de": ("Kelvin", "Kelvin"), "fr": ("kelvin", "kelvins"),
        "es": ("kelvin", "kelvin"), "it": ("kelvin", "kelvin"), "nl": ("kelvin", "kelvin"),
        "pt": ("kelvin", "kelvin"),
    },
    "kWh": {
        "en": ("kilowatt hour", "kilowatt hours"), "de": ("Kilowattstunde", "Kilowattstunden"),
        "fr": ("kilowattheure", "kilowattheures"), "es": ("kilovatio hora", "kilovatios hora"),
        "it": ("kilowattora", "kilowattora"), "nl": ("kilowattuur", "kilowattuur"),
        "pt": ("quilowatt-hora", "quilowatts-hora"),
    },
    "W": {
        "en": ("watt", "watts"), "de": ("Watt", "Watt"), "fr": ("watt", "watts"),
        "es": ("vatio", "vatios"), "it": ("watt", "watt"), "nl": ("watt", "watt"),
        "pt": ("watt", "watts"),
    },
    "lx": dict.fromkeys(_DEGREES, ("lux", "lux")),
    "mm": {
        "en": ("millimeter", "millimeters"), "de": ("Millimeter", "Millimeter"),
        "fr": ("millimètre", "millimètres"), "es": ("milímetro", "milímetros"),
        "it": ("millimetro", "millimetri"), "nl": ("millimeter", "millimeter"),
        "pt": ("milímetro", "milímetros"),
    },
    "m³": {
        "en": ("cubic meter", "cubic meters"), "de": ("Kubikmeter", "Kubikmeter"),
        "fr": ("mètre cube", "mètres cubes"), "es": ("metro cúbico", "metros cúbicos"),
        "it": ("metro cubo", "metri cubi"), "nl": ("kubieke meter", "kubieke meter"),
        "pt": ("metro cúbico", "metros cúbicos"),
    },
}  # fmt: skip


# A time from now ("in ten minutes", "dans une heure", "tra mezz'ora"): the words before it,
# the words of an amount besides digits and numbers, and the units that end it.
_LATER: Mapping[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "en": (("in", "after"), ("a", "an", "one", "half", "couple", "of", "few"),
           ("minute", "minutes", "min", "mins", "hour", "hours", "second", "seconds", "sec",
            "h", "hr", "hrs")),
    "de": (("in",), ("einer", "einem", "ein", "halben", "paar"),
           ("minute", "minuten", "min", "stunde", "stunden", "sekunde", "sekunden",
            "viertelstunde", "dreiviertelstunde", "h", "std")),
    "fr": (("dans",), ("une", "un", "demi", "demie", "quelques"),
           ("minute", "minutes", "min", "heure", "heures", "seconde", "secondes", "h")),
    "es": (("en", "dentro de"), ("un", "una", "media", "unos", "unas"),
           ("minuto", "minutos", "min", "hora", "horas", "segundo", "segundos", "h")),
    "it": (("tra", "fra"), ("un", "una", "uno", "qualche", "mezza"),
           ("minuto", "minuti", "min", "ora", "ore", "secondo", "secondi", "un'ora",
            "mezz'ora", "mezzora", "h")),
    "nl": (("over",), ("een", "half", "halve", "paar"),
           ("minuut", "minuten", "min", "uur", "seconde", "seconden", "kwartier", "h")),
    "pt": (("em", "daqui a", "dentro de"), ("um", "uma", "meia", "alguns", "algumas"),
           ("minuto", "minutos", "min", "hora", "horas", "segundo", "segundos", "h")),
}  # fmt: skip
# The most words an amount takes ("vingt et une", "a couple of").
_AMOUNT_WORDS: Final = 4


def asks_for_later(text: str, language: str) -> bool:
    """Whether a request asks for a time from now: "turn the lights off in ten minutes"."""
    befores, amounts, units = _LATER.get(base_language(language), ((), (), ()))
    said = words(text)
    for start in range(len(said)):
        for before in befores:
            parts = before.split()
            if said[start : start + len(parts)] != parts:
                continue
            rest = said[start + len(parts) : start + len(parts) + _AMOUNT_WORDS + 1]
            for word in rest:
                if word in units:
                    return True
                number = word.isdigit() or word in DIGIT_WORDS or is_number_word(word)
                if not (number or word in amounts or word in NUMBER_JOINERS):
                    break
    return False
