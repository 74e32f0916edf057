"""Big cities by time zone, named in each language: how a zone reads beside a time ("Seoul
time", "首尔时间") and what `/timezone` understands besides IANA names ("berlin", "柏林")."""

from __future__ import annotations

from functools import lru_cache

from bot.i18n.languages import Lang

# IANA zone -> (English, 简体, 繁體) name of its city; aliases below.
CITIES: dict[str, tuple[str, str, str]] = {
    "Asia/Seoul": ("Seoul", "首尔", "首爾"),
    "Asia/Tokyo": ("Tokyo", "东京", "東京"),
    "Asia/Shanghai": ("Beijing", "北京", "北京"),
    "Asia/Hong_Kong": ("Hong Kong", "香港", "香港"),
    "Asia/Taipei": ("Taipei", "台北", "臺北"),
    "Asia/Singapore": ("Singapore", "新加坡", "新加坡"),
    "Asia/Kolkata": ("India", "印度", "印度"),
    "Asia/Dubai": ("Dubai", "迪拜", "杜拜"),
    "Asia/Jerusalem": ("Jerusalem", "耶路撒冷", "耶路撒冷"),
    "Europe/London": ("London", "伦敦", "倫敦"),
    "Europe/Paris": ("Paris", "巴黎", "巴黎"),
    "Europe/Berlin": ("Berlin", "柏林", "柏林"),
    "Europe/Zurich": ("Zurich", "苏黎世", "蘇黎世"),
    "Europe/Amsterdam": ("Amsterdam", "阿姆斯特丹", "阿姆斯特丹"),
    "Europe/Vienna": ("Vienna", "维也纳", "維也納"),
    "Europe/Madrid": ("Madrid", "马德里", "馬德里"),
    "Europe/Rome": ("Rome", "罗马", "羅馬"),
    "Europe/Stockholm": ("Stockholm", "斯德哥尔摩", "斯德哥爾摩"),
    "Europe/Moscow": ("Moscow", "莫斯科", "莫斯科"),
    "America/New_York": ("New York", "纽约", "紐約"),
    "America/Toronto": ("Toronto", "多伦多", "多倫多"),
    "America/Chicago": ("Chicago", "芝加哥", "芝加哥"),
    "America/Denver": ("Denver", "丹佛", "丹佛"),
    "America/Los_Angeles": ("Los Angeles", "洛杉矶", "洛杉磯"),
    "America/Vancouver": ("Vancouver", "温哥华", "溫哥華"),
    "America/Mexico_City": ("Mexico City", "墨西哥城", "墨西哥城"),
    "America/Sao_Paulo": ("São Paulo", "圣保罗", "聖保羅"),
    "Australia/Sydney": ("Sydney", "悉尼", "雪梨"),
    "Australia/Melbourne": ("Melbourne", "墨尔本", "墨爾本"),
    "Pacific/Auckland": ("Auckland", "奥克兰", "奧克蘭"),
    "Africa/Johannesburg": ("Johannesburg", "约翰内斯堡", "約翰尼斯堡"),
    "Africa/Cairo": ("Cairo", "开罗", "開羅"),
}
# Other names a user types for the same clocks.
_ALIASES: dict[str, str] = {
    "shanghai": "Asia/Shanghai", "上海": "Asia/Shanghai", "shenzhen": "Asia/Shanghai",
    "深圳": "Asia/Shanghai", "hangzhou": "Asia/Shanghai", "杭州": "Asia/Shanghai",
    "china": "Asia/Shanghai", "中国": "Asia/Shanghai", "中國": "Asia/Shanghai",
    "beijing": "Asia/Shanghai", "peking": "Asia/Shanghai", "korea": "Asia/Seoul",
    "韩国": "Asia/Seoul", "韓國": "Asia/Seoul", "japan": "Asia/Tokyo", "日本": "Asia/Tokyo",
    "taiwan": "Asia/Taipei", "台湾": "Asia/Taipei", "臺灣": "Asia/Taipei", "台灣": "Asia/Taipei",
    "台北": "Asia/Taipei", "bangalore": "Asia/Kolkata", "bengaluru": "Asia/Kolkata",
    "delhi": "Asia/Kolkata", "new delhi": "Asia/Kolkata", "mumbai": "Asia/Kolkata",
    "tel aviv": "Asia/Jerusalem", "munich": "Europe/Berlin", "慕尼黑": "Europe/Berlin",
    "germany": "Europe/Berlin", "德国": "Europe/Berlin", "德國": "Europe/Berlin",
    "uk": "Europe/London", "oxford": "Europe/London", "cambridge uk": "Europe/London",
    "edinburgh": "Europe/London", "france": "Europe/Paris", "法国": "Europe/Paris",
    "boston": "America/New_York", "波士顿": "America/New_York", "波士頓": "America/New_York",
    "montreal": "America/Toronto", "蒙特利尔": "America/Toronto", "蒙特婁": "America/Toronto",
    "pittsburgh": "America/New_York", "seattle": "America/Los_Angeles",
    "西雅图": "America/Los_Angeles", "西雅圖": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles", "旧金山": "America/Los_Angeles",
    "舊金山": "America/Los_Angeles", "san diego": "America/Los_Angeles",
    "bay area": "America/Los_Angeles", "rio de janeiro": "America/Sao_Paulo",
    "rio": "America/Sao_Paulo", "sao paulo": "America/Sao_Paulo",
}  # fmt: skip
_LANGS: tuple[Lang, ...] = ("en", "zh_Hans", "zh_Hant")


def city_name(zone: str, lang: Lang = "en") -> str:
    """The city a zone is named after in `lang` ("首尔"), else the IANA name's last part
    ("Kathmandu"); "" for a zone that names no place."""
    names = CITIES.get(zone)
    if names is not None:
        return names[_LANGS.index(lang) if lang in _LANGS else 0]
    if "/" not in zone:
        return ""
    return zone.rsplit("/", 1)[-1].replace("_", " ")


@lru_cache(maxsize=1)
def _by_name() -> dict[str, str]:
    found = {name.casefold(): zone for zone, names in CITIES.items() for name in names}
    found.update(_ALIASES)
    found["são paulo"] = "America/Sao_Paulo"
    return found


def zone_of_city(text: str) -> str | None:
    """The IANA zone of a city (or country with one clock) a user names, in English or
    Chinese, any case; None when it is not one of ours."""
    return _by_name().get(" ".join(text.split()).casefold())
