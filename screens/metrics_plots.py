"""Drawing the Metrics screen's terminal plots (textual-plotext) from plot_data series."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from workbench.metrics.plot_data import (
    Interval,
    ReliabilityPoint,
)


def _reset(plot: PlotextPlot, title: str):
    plt = plot.plt
    plt.clear_data()
    plt.clear_figure()
    plt.title(title)
    return plt


def _empty(plot: PlotextPlot, title: str, message: str) -> None:
    plt = _reset(plot, title)
    plt.text(message, 0.5, 0.5, alignment="center")
    plt.xlim(0, 1)
    plt.ylim(0, 1)
    plt.xticks([], [])
    plt.yticks([], [])
    plot.refresh()


def draw_means(plot: PlotextPlot, series: list[Interval], title: str) -> None:
    """Means as points with vertical CI bars, one x position per condition (metrics side by side)."""
    if not series:
        _empty(plot, title, "no rated items yet")
        return
    plt = _reset(plot, title)
    labels = list(dict.fromkeys(s.label for s in series))
    groups = list(dict.fromkeys(s.group for s in series))
    width = 0.25 if len(groups) > 1 else 0.0
    for gi, group in enumerate(groups):
        pts = [s for s in series if s.group == group]
        offset = (gi - (len(groups) - 1) / 2) * width
        xs = [labels.index(s.label) + 1 + offset for s in pts]
        for x, s in zip(xs, pts):
            if s.low is not None:
                plt.plot([x, x], [s.low, s.high], marker="braille", color=gi + 1)
        plt.scatter(xs, [s.value for s in pts], marker="dot", color=gi + 1, label=group)
    plt.xticks(list(range(1, len(labels) + 1)), labels)
    top = max((s.high if s.high is not None else s.value) for s in series)
    plt.ylim(0, max(3.0, top))
    plot.refresh()


def draw_forest(plot: PlotextPlot, series: list[Interval], title: str) -> None:
    """Effect sizes as points with horizontal CI lines, a vertical line at d = 0."""
    if not series:
        _empty(plot, title, "no defined effect size")
        return
    plt = _reset(plot, title)
    n = len(series)
    ys = [n - i for i in range(n)]
    for y, s in zip(ys, series):
        if s.low is not None:
            plt.plot([s.low, s.high], [y, y], marker="braille", color="blue")
    plt.scatter([s.value for s in series], ys, marker="dot", color="red")
    plt.vertical_line(0, color="gray")
    plt.yticks(ys, [s.label for s in series])
    plt.ylim(0.5, n + 0.5)
    plot.refresh()


def draw_agreement(plot: PlotextPlot, series: list[Interval], title: str) -> None:
    """Kappa per metric and criterion as bars."""
    if not series:
        _empty(plot, title, "no agreement computed yet")
        return
    plt = _reset(plot, title)
    labels = [s.label.split(": ")[-1][:14] for s in series]
    plt.bar(labels, [s.value for s in series], width=0.4)
    plt.ylim(min(0.0, min(s.value for s in series)), 1.0)
    plot.refresh()


def draw_reliability(plot: PlotextPlot, judge: str, points: list[ReliabilityPoint], title: str) -> None:
    """Observed frequency against mean predicted probability per bin, with the diagonal."""
    if not points:
        _empty(plot, title, "no judge scores with a human outcome")
        return
    plt = _reset(plot, f"{title}: {judge}")
    plt.plot([0, 1], [0, 1], marker="braille", color="gray", label="perfect")
    plt.scatter([p.predicted for p in points], [p.observed for p in points], marker="dot", color="red",
                label="bins")
    plt.xlim(0, 1)
    plt.ylim(0, 1)
    plt.xlabel("mean predicted")
    plt.ylabel("observed")
    plot.refresh()


class SimilarityHeatmap(PlotextPlot):
    """A run's perspective-by-perspective cosine similarity (DQ-1's input).

    Each cell is a block shaded on a fixed scale (-1 black, 1 white) and labelled with its value, so the map
    reads the same without colour. The blocks are sized to the widget at render time, so they stay solid
    whatever the terminal size.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.matrix: list[list[float]] = []
        self.title = "DQ-1 similarity"

    def show(self, matrix: list[list[float]], title: str) -> None:
        self.matrix, self.title = matrix, title
        self.refresh()

    def render(self):
        self._draw()
        return super().render()

    def _draw(self) -> None:
        matrix, title = self.matrix, self.title
        plt = _reset(self, title)
        if not matrix:
            plt.text("pick a run with two or more perspectives", 0.5, 0.5, alignment="center")
            plt.xlim(0, 1)
            plt.ylim(0, 1)
            plt.xticks([], [])
            plt.yticks([], [])
            return
        n = len(matrix)
        # The canvas inside the frame: the widget less the y-tick labels, frame and title/x-tick lines.
        width = max(n, self.size.width - 5)
        height = max(n, self.size.height - 4)
        kx, ky = max(1, width // n), max(1, height // n)

        def shade(v: float) -> tuple[int, int, int]:
            g = int(round(255 * (min(1.0, max(-1.0, v)) + 1) / 2))
            return (g, g, g)

        big = [[shade(matrix[i // ky][j // kx]) for j in range(n * kx)] for i in range(n * ky)]
        plt.matrix_plot(big)
        for i in range(n):
            for j in range(n):
                plt.text(f"{matrix[i][j]:.2f}", j * kx + kx // 2, (n - 1 - i) * ky + ky // 2,
                         alignment="center", color="red")
        plt.xticks([j * kx + kx // 2 for j in range(n)], [f"P{j + 1}" for j in range(n)])
        plt.yticks([(n - 1 - i) * ky + ky // 2 for i in range(n)], [f"P{i + 1}" for i in range(n)])
        plt.xlabel("perspective")
        plt.ylabel("")
