"""The Metrics screen's terminal plots (textual-plotext), drawn from plot_data series.

Every plot is a :class:`MetricPlot` holding a *painter*: a function that
draws on the plotext figure for the widget's current size (so heatmap blocks
stay solid at any terminal size). Long x-axis labels are replaced by numbers
with a caption under the plot: plotext places long tick labels in an order
that depends on string hashing, so the same data could draw differently from
one run to the next.
"""

from __future__ import annotations

from collections.abc import Callable

from textual_plotext import PlotextPlot

from workbench.metrics.plots import Interval, ReliabilityPoint

Painter = Callable[[object, int, int], None]  # (plt, width, height)


class MetricPlot(PlotextPlot):
    """A plot redrawn from its painter on every render."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.painter: Painter | None = None
        self.title = ""

    def show(self, title: str, painter: Painter | None) -> None:
        self.title, self.painter = title, painter
        self.refresh()

    def as_text(self, width: int = 100, height: int = 30) -> str:
        """The plot drawn as plain text at `width` x `height` (what "save" writes beside the tables)."""
        import plotext

        plotext.clear_data()
        plotext.clear_figure()
        plotext.plotsize(width, height)
        plotext.title(self.title)
        (self.painter or _empty("no data yet"))(plotext, width, height)
        text = plotext.uncolorize(plotext.build())
        plotext.clear_figure()
        return text + "\n"

    def render(self):
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(self.title)
        (self.painter or _empty("no data yet"))(plt, self.size.width, self.size.height)
        return super().render()


def _fit(label: str, room: int) -> str:
    room = max(2, room)
    return label if len(label) <= room else label[:room - 1] + "~"


SHORT_LABEL = 3  # x tick labels up to this long are drawn as they are


def x_labels(labels: list[str]) -> tuple[list[str], str]:
    """The x tick labels to draw and the caption that explains them (empty when the labels are short)."""
    if all(len(label) <= SHORT_LABEL for label in labels):
        return labels, ""
    return [str(i) for i in range(1, len(labels) + 1)], "   ".join(f"{i} {label}" for i, label in
                                                                   enumerate(labels, start=1))


def _empty(message: str) -> Painter:
    def paint(plt, width: int, height: int) -> None:
        plt.text(message, 0.5, 0.5, alignment="center")
        plt.xlim(0, 1)
        plt.ylim(0, 1)
        plt.xticks([], [])
        plt.yticks([], [])

    return paint


def means_painter(series: list[Interval]) -> tuple[Painter, str]:
    """Means as points with vertical CI bars, one x position per label (metrics side by side)."""
    if not series:
        return _empty("no rated items yet"), ""
    ticks, caption = x_labels(list(dict.fromkeys(s.label for s in series)))

    def paint(plt, width: int, height: int) -> None:
        labels = list(dict.fromkeys(s.label for s in series))
        groups = list(dict.fromkeys(s.group for s in series))
        step = 0.25 if len(groups) > 1 else 0.0
        for gi, group in enumerate(groups):
            pts = [s for s in series if s.group == group]
            offset = (gi - (len(groups) - 1) / 2) * step
            xs = [labels.index(s.label) + 1 + offset for s in pts]
            for x, s in zip(xs, pts):
                if s.low is not None:
                    plt.plot([x, x], [s.low, s.high], marker="braille", color=gi + 1)
            plt.scatter(xs, [s.value for s in pts], marker="dot", color=gi + 1,
                        label=group if len(groups) > 1 else None)
        plt.xticks(list(range(1, len(labels) + 1)), ticks)
        plt.xlim(0.5, len(labels) + 0.5)
        top = max((s.high if s.high is not None else s.value) for s in series)
        plt.ylim(0, max(3.0, top))

    return paint, caption


def forest_painter(series: list[Interval]) -> Painter:
    """Effect sizes as points with horizontal CI lines, and a vertical line at d = 0."""
    if not series:
        return _empty("no defined effect size")

    def paint(plt, width: int, height: int) -> None:
        n = len(series)
        ys = [n - i for i in range(n)]
        for y, s in zip(ys, series):
            if s.low is not None:
                plt.plot([s.low, s.high], [y, y], marker="braille", color="blue")
        plt.scatter([s.value for s in series], ys, marker="dot", color="red")
        plt.vertical_line(0, color="gray")
        # labels whole up to half the plot ("C2 vs. B1 Epistemic Humility" was cut at a third, 140 columns)
        room = min(max(len(s.label) for s in series), max(12, width // 2))
        plt.yticks(ys, [_fit(s.label, room) for s in series])
        plt.ylim(0.5, n + 0.5)

    return paint


def agreement_painter(series: list[Interval]) -> tuple[Painter, str]:
    """Kappa per metric and criterion as numbered bars (the caption names them)."""
    if not series:
        return _empty("no agreement computed yet"), ""
    ticks, caption = x_labels([s.label.split(": ")[-1] for s in series])

    def paint(plt, width: int, height: int) -> None:
        xs = list(range(1, len(series) + 1))
        plt.bar(xs, [s.value for s in series], width=0.4)
        plt.xticks(xs, ticks)
        plt.ylim(min(0.0, min(s.value for s in series)), 1.0)

    return paint, caption


def reliability_painter(points: list[ReliabilityPoint]) -> Painter:
    """Observed frequency against mean predicted probability per bin, with the diagonal."""
    if not points:
        return _empty("no judge scores with a human outcome")

    def paint(plt, width: int, height: int) -> None:
        plt.plot([0, 1], [0, 1], marker="braille", color="gray", label="perfect")
        plt.scatter([p.predicted for p in points], [p.observed for p in points], marker="dot", color="red",
                    label="bins")
        plt.xlim(0, 1)
        plt.ylim(0, 1)
        plt.xlabel("mean predicted")
        plt.ylabel("observed")

    return paint


def heatmap_painter(matrix: list[list[float]]) -> Painter:
    """A run's perspective-by-perspective cosine similarity (DQ-1's input): each cell a block shaded on a
    fixed scale (-1 black, 1 white) and labelled with its value, so the map reads the same without colour."""
    if not matrix:
        return _empty("pick a run with two or more perspectives")

    def paint(plt, width: int, height: int) -> None:
        n = len(matrix)
        # The canvas inside the frame: the widget less the y-tick labels, frame and title/x-tick lines.
        kx = max(1, max(n, width - 5) // n)
        ky = max(1, max(n, height - 4) // n)

        def shade(v: float) -> tuple[int, int, int]:
            g = int(round(255 * (min(1.0, max(-1.0, v)) + 1) / 2))
            return (g, g, g)

        big = [[shade(matrix[i // ky][j // kx]) for j in range(n * kx)] for i in range(n * ky)]
        plt.matrix_plot(big)
        for i in range(n):
            for j in range(n):
                plt.text(f"{matrix[i][j]:.2f}", j * kx + kx // 2, (n - 1 - i) * ky + ky // 2,
                         alignment="center", color="red")
        plt.xticks([j * kx + kx // 2 for j in range(n)], [str(j + 1) for j in range(n)])
        plt.yticks([(n - 1 - i) * ky + ky // 2 for i in range(n)], [str(i + 1) for i in range(n)])
        plt.xlabel("perspective")
        plt.ylabel("")

    return paint
