"""The axes every per-shape ratio plot shares (tools/plot_gemm_rounds.py, plot_fp8_vs_deepgemm.py):
one tick per shape, the line at 1.00, the ratio's label, a title and a legend; then the SVG."""


def finish_ratio_plot(fig, ax, shapes, ylabel, title, dst, legend_loc):
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(shapes, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc=legend_loc)
    fig.tight_layout()
    fig.savefig(dst)
