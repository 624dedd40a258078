"""Pictures of the table: ``render_mode="rgb_array"`` frames, drawn with Pillow.

:func:`render_frame` draws a game from a point of view (a seat, or ``None``
for everything) as an ``(H, W, 3)`` uint8 array; :func:`draw_scene` draws a
:class:`~commerce_env.scene.Scene`, so what a frame can show is decided in
:mod:`commerce_env.scene` (R11), never here.  Pillow is imported when a frame
is first drawn (extra ``render``), not by ``import commerce_env``.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from .engine.base import Game
from .scene import Scene, SeatScene, build_scene

WIDTH, HEIGHT = 960, 640
FELT = (21, 99, 61)
FELT_DARK = (14, 72, 44)
RAIL = (92, 58, 30)
PANEL = (246, 242, 230)
PANEL_OUT = (190, 186, 176)
INK = (30, 30, 30)
RED = (200, 30, 40)
GOLD = (247, 197, 38)
WIN = (255, 236, 140)
BACK = (38, 70, 150)
LATTICE = (92, 122, 196)
MUTED = (110, 110, 110)
SUIT_NAMES = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


def _title(variant: str) -> str:
    """What the variant's engine module calls it (a replay's unknown variant: its own name)."""
    from .rules import variant_info

    try:
        return variant_info(variant).title
    except ValueError:
        return variant


def _pillow() -> tuple[Any, Any]:
    try:
        from PIL import Image, ImageDraw
    except ImportError:  # pragma: no cover - depends on the install
        raise ImportError("rgb_array frames need Pillow: pip install 'commerce-rl[render]'") from None
    return Image, ImageDraw


@cache
def _font(size: int, bold: bool = False) -> Any:
    from PIL import ImageFont

    for name in (("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"),):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            pass
    return ImageFont.load_default(size)  # Pillow's own scalable font


def render_frame(game: Game, viewer: int | None = None, names: list[str] | None = None) -> np.ndarray:
    """The table of ``game`` from ``viewer``'s point of view as an ``(H, W, 3)`` uint8 array."""
    return draw_scene(build_scene(game, viewer, names))


def draw_scene(scene: Scene, size: tuple[int, int] = (WIDTH, HEIGHT)) -> np.ndarray:
    """Draw a scene: the felt, the table cards and pool, a panel per seat, and the status lines."""
    image = scene_image(scene, size)
    return np.asarray(image, dtype=np.uint8).copy()


def scene_image(scene: Scene, size: tuple[int, int] = (WIDTH, HEIGHT)) -> Any:
    """The scene as a PIL image (for GIFs and PNGs)."""
    pil_image, pil_draw = _pillow()
    width, height = size
    image = pil_image.new("RGB", size, FELT_DARK)
    draw = pil_draw.Draw(image)
    cx, cy = width / 2, height / 2 - 12
    rx, ry = width * 0.40, height * 0.31
    draw.ellipse([cx - rx - 14, cy - ry - 14, cx + rx + 14, cy + ry + 14], fill=RAIL)
    draw.ellipse([cx - rx, cy - ry, cx + rx, cy + ry], fill=FELT)
    _header(draw, scene, width)
    _centre(draw, scene, cx, cy)
    n = len(scene.seats)
    scale = 1.0 if n <= 6 else 0.8 if n <= 8 else 0.64
    bottom = scene.viewer if scene.viewer is not None else 0
    pw, ph = 176 * scale, 134 * scale
    sx, sy = width / 2 - pw / 2 - 8, height / 2 - ph / 2 - 40  # the ellipse the panels sit on
    for seat in scene.seats:
        # The point of view sits at the bottom; play passes left, i.e. clockwise on screen (R3.1).
        k = (seat.seat - bottom) % n
        angle = math.pi / 2 + 2 * math.pi * k / n
        _seat_panel(draw, seat, scene, cx + sx * math.cos(angle), cy + sy * math.sin(angle), scale)
    _footer(draw, scene, width, height)
    return image


# ------------------------------------------------------------------ parts
def _header(draw: Any, scene: Scene, width: int) -> None:
    title = f"{_title(scene.variant)}   deal {scene.deal}"
    if not scene.showdown and not scene.over:
        title += f", round {scene.round}"
    draw.text((14, 10), title, fill="white", font=_font(18, True))
    view = "everything" if scene.viewer is None else scene.seats[scene.viewer].name
    draw.text((width - 14, 12), f"view: {view}", fill=(220, 230, 220), font=_font(14), anchor="ra")


def _centre(draw: Any, scene: Scene, cx: float, cy: float) -> None:
    w, h = 58, 82
    if scene.table:
        label = scene.table_name
        total = len(scene.table) * (w + 8) - 8
        x = cx - total / 2
        for card in scene.table:
            _card(draw, x, cy - h / 2 - 8, card, w, h)
            x += w + 8
        draw.text((cx, cy - h / 2 - 14), label, fill=(220, 235, 220), font=_font(13), anchor="md")
    info = []
    if scene.counters_label != "counters" or scene.pool:
        info.append(f"pool {scene.pool}")
    if scene.stock is not None:
        info.append(f"stock {scene.stock}")
    if info:
        y = cy + h / 2 + 2 if scene.table else cy - 8
        draw.text((cx, y), "    ".join(info), fill="white", font=_font(16, True), anchor="ma")
    if scene.showdown and scene.result:
        draw.text((cx, cy + h / 2 + 26 if scene.table else cy + 18), "SHOWDOWN", fill=GOLD,
                  font=_font(18, True), anchor="ma")


def _seat_panel(draw: Any, seat: SeatScene, scene: Scene, px: float, py: float, scale: float) -> None:
    pw, ph = 176 * scale, 134 * scale
    x0, y0 = px - pw / 2, py - ph / 2
    fill = PANEL_OUT if seat.out else WIN if seat.winner else PANEL
    outline, width = (GOLD, 5) if seat.to_act and not scene.showdown else (INK, 1)
    draw.rounded_rectangle([x0, y0, x0 + pw, y0 + ph], radius=10 * scale, fill=fill, outline=outline, width=width)
    small, normal = _font(max(9, round(12 * scale))), _font(max(10, round(14 * scale)), True)
    draw.text((x0 + 8 * scale, y0 + 5 * scale), seat.name, fill=INK, font=normal)
    if seat.dealer:
        r = 10 * scale
        dx, dy = x0 + pw - 14 * scale, y0 + 13 * scale
        draw.ellipse([dx - r, dy - r, dx + r, dy + r], fill="white", outline=INK, width=2)
        draw.text((dx, dy), "D", fill=INK, font=_font(max(9, round(12 * scale)), True), anchor="mm")
    balance = f"{scene.counters_label} {seat.counters}"
    if seat.money is not None:
        balance += f"   money {seat.money}"
    draw.text((x0 + 8 * scale, y0 + 24 * scale), balance, fill=INK, font=small)
    # three cards
    w, h = 44 * scale, 62 * scale
    total = 3 * w + 2 * 6 * scale
    x = px - total / 2
    for card in seat.cards:
        _card(draw, x, y0 + 42 * scale, card, w, h)
        x += w + 6 * scale
    note = ("out" if seat.out else "") if not scene.showdown else seat.category
    if scene.showdown and seat.change:
        note = f"{note}  {seat.change:+d}" if note else f"{seat.change:+d}"
    elif not scene.showdown:
        note = " ".join(p for p in (note, seat.status or seat.last.replace("_", " ")) if p)
    color = RED if scene.showdown and seat.change < 0 else (20, 110, 40) if seat.winner else MUTED
    if seat.winner:
        note = ("WINS  " + note).strip()
    draw.text((px, y0 + ph - 5 * scale), note, fill=color, font=_font(max(9, round(13 * scale)), True),
              anchor="md")
    if seat.to_act and not scene.showdown:
        draw.text((px, y0 - 4), "to act", fill=GOLD, font=_font(max(10, round(14 * scale)), True), anchor="md")


def _footer(draw: Any, scene: Scene, width: int, height: int) -> None:
    lines = []
    if scene.last_action:
        lines.append(("last: " + scene.last_action, "white"))
    if scene.result:
        lines.append((scene.result, GOLD))
    if scene.match_result:
        lines.append((scene.match_result, GOLD))
    if not scene.result and not scene.match_result and scene.prompt:
        lines.append((scene.prompt, (220, 235, 220)))
    y = height - 8
    for text, color in reversed(lines[-3:]):
        draw.text((14, y), _fit(draw, text, width - 28), fill=color, font=_font(15, True), anchor="ld")
        y -= 21


def _fit(draw: Any, text: str, limit: float) -> str:
    """``text``, or its longest prefix that fits in ``limit`` pixels with "..." after it.

    Found by halving the range of lengths, so a text of any length (a replay may name a
    player with thousands of characters) is measured about log2(len(text)) times.
    """
    font = _font(15, True)
    if draw.textlength(text, font=font) <= limit:
        return text
    fits, too_long = 0, len(text) + 1  # the longest fitting prefix is at least ``fits``, below ``too_long``
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if draw.textlength(text[:middle] + "...", font=font) <= limit:
            fits = middle
        else:
            too_long = middle
    return text[:fits] + "..."


# ------------------------------------------------------------------ cards
def _card(draw: Any, x: float, y: float, card: str | None, w: float, h: float) -> None:
    radius = max(3, w / 8)
    if card is None:
        draw.rounded_rectangle([x, y, x + w, y + h], radius=radius, fill="white", outline=INK)
        inset = max(3, w / 12)
        x0, y0, bw, bh = x + inset, y + inset, w - 2 * inset, h - 2 * inset
        draw.rectangle([x0, y0, x0 + bw, y0 + bh], fill=BACK)
        step = max(5.0, w / 6)
        k = step
        while k < bw + bh:  # a lattice of thin diagonals, clipped to the inner rectangle
            u0, u1 = max(0.0, k - bh), min(bw, k)
            draw.line([(x0 + u0, y0 + k - u0), (x0 + u1, y0 + k - u1)], fill=LATTICE, width=1)
            d = k - bh
            v0, v1 = max(0.0, -d), min(bh, bw - d)
            if v1 > v0:
                draw.line([(x0 + v0 + d, y0 + v0), (x0 + v1 + d, y0 + v1)], fill=LATTICE, width=1)
            k += step
        return
    rank, suit = card[:-1], card[-1]
    color = RED if suit in "DH" else INK
    draw.rounded_rectangle([x, y, x + w, y + h], radius=radius, fill="white", outline=INK)
    font = _font(max(10, round(h * 0.27)), True)
    draw.text((x + w * 0.1, y + h * 0.04), rank, fill=color, font=font)
    _suit(draw, SUIT_NAMES[suit], x + w * 0.2 + (w * 0.1 if len(rank) > 1 else 0), y + h * 0.44, w * 0.14, color)
    _suit(draw, SUIT_NAMES[suit], x + w * 0.56, y + h * 0.66, w * 0.3, color)


def _suit(draw: Any, name: str, cx: float, cy: float, r: float, color: Any) -> None:
    """A suit symbol of radius ``r`` drawn from shapes (no font needs the glyphs)."""
    if name == "diamond":
        draw.polygon([(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)], fill=color)
        return
    if name == "heart":
        k = r * 0.52
        draw.ellipse([cx - 2 * k, cy - r * 0.75, cx, cy - r * 0.75 + 2 * k], fill=color)
        draw.ellipse([cx, cy - r * 0.75, cx + 2 * k, cy - r * 0.75 + 2 * k], fill=color)
        draw.polygon([(cx - 2 * k + 0.5, cy - r * 0.75 + k * 1.15), (cx + 2 * k - 0.5, cy - r * 0.75 + k * 1.15),
                      (cx, cy + r)], fill=color)
        return
    if name == "spade":
        k = r * 0.5
        draw.polygon([(cx, cy - r), (cx + 2 * k - 0.5, cy + r * 0.15), (cx - 2 * k + 0.5, cy + r * 0.15)],
                     fill=color)
        draw.ellipse([cx - 2 * k, cy - r * 0.25, cx, cy - r * 0.25 + 2 * k * 0.95], fill=color)
        draw.ellipse([cx, cy - r * 0.25, cx + 2 * k, cy - r * 0.25 + 2 * k * 0.95], fill=color)
        draw.polygon([(cx, cy + r * 0.2), (cx + r * 0.35, cy + r), (cx - r * 0.35, cy + r)], fill=color)
        return
    k = r * 0.45  # club: three leaves and a stem
    draw.ellipse([cx - k, cy - r, cx + k, cy - r + 2 * k], fill=color)
    draw.ellipse([cx - 2 * k - k * 0.3, cy - r * 0.3, cx - k * 0.3, cy - r * 0.3 + 2 * k], fill=color)
    draw.ellipse([cx + k * 0.3, cy - r * 0.3, cx + 2 * k + k * 0.3, cy - r * 0.3 + 2 * k], fill=color)
    draw.polygon([(cx, cy - r * 0.1), (cx + r * 0.35, cy + r), (cx - r * 0.35, cy + r)], fill=color)


def save_animation(scenes: list[Scene], path: str, seconds: float = 1.2, showdown_seconds: float = 3.0) -> None:
    """Write scenes as an animated GIF (Pillow), or an MP4 when ``path`` ends in ``.mp4``
    (needs ``imageio`` with ``imageio-ffmpeg``).  An existing file is never overwritten."""
    import os

    if not scenes:
        raise ValueError("no scenes to write")
    if os.path.exists(path):
        raise FileExistsError(f"{path} exists; give a new file name")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # runs/game.gif in a fresh clone
    if str(path).lower().endswith(".mp4"):
        try:
            import imageio.v2 as imageio
        except ImportError:
            raise ValueError("writing MP4 needs imageio and imageio-ffmpeg (pip install imageio imageio-ffmpeg); "
                             "or write a .gif") from None
        with imageio.get_writer(path, fps=1.0 / seconds, macro_block_size=16) as writer:
            for scene in scenes:
                frame = draw_scene(scene)
                for _ in range(max(1, round(showdown_seconds / seconds)) if scene.showdown else 1):
                    writer.append_data(frame)
        return
    images = [scene_image(scene).quantize(colors=64, dither=0) for scene in scenes]
    durations = [round(1000 * (showdown_seconds if s.showdown else seconds)) for s in scenes]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
