"""Train an MLP on scikit-learn's 8x8 digits with irax, then deploy it (`make demo`).

    python examples/digits.py                  # 40 epochs; fails below 97 % test accuracy
    python examples/digits.py --quick          # 3 epochs, no threshold (the test suite)
    python examples/digits.py --out results/   # where the PNG and the .vmfb go (default: .)

The 1797 digits ship with scikit-learn (no download). A 64-256-128-10 ReLU network,
initialised with `irax.nn.initializers` from `irax.random` keys, is trained with
`irax.optim.adam` on the softmax cross-entropy: one `irax.jit` of `irax.value_and_grad`
plus the optimizer's update is the whole training step. The script shows a progress bar
per epoch, the first step's time (tracing and compiling with IREE) against the steady
step time, the loss and accuracy curves as a PNG, and then exports the predict function
with `irax.export`, reloads the saved `.vmfb` with `irax.aot.load` (the IREE runtime
only: docs/deploy.md) and checks that the artifact's test accuracy equals the model's.
"""

import argparse
import os
import sys
import time

import numpy as np

import irax
import irax.numpy as jnp
import irax.optim as optim
from irax.nn import initializers

SIZES = (64, 256, 128, 10)
THRESHOLD = 0.97


# ---- data ----------------------------------------------------------------------------------
def load(seed: int):
    """The digits, split 75/25 (stratified, fixed seed), pixels scaled from 0..16 to
    [0, 1]. Returns float32 images of 64 pixels and int32 labels, train then test."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_tr, x_te, y_tr, y_te = train_test_split(x / 16.0, y, test_size=0.25,
                                              random_state=seed, stratify=y)
    return (x_tr.astype(np.float32), y_tr.astype(np.int32),
            x_te.astype(np.float32), y_te.astype(np.int32))


def batches(x, y, batch_size: int, rng: np.random.Generator):
    """Shuffled full batches of ``(x, y)`` (the remainder is dropped, so every step has one
    shape and ``irax.jit`` compiles once); a dataset smaller than a batch gives one batch.

    >>> xs = np.zeros((10, 2)); ys = np.arange(10)
    >>> [b[0].shape for b in batches(xs, ys, 4, np.random.default_rng(0))]
    [(4, 2), (4, 2)]
    """
    n = len(x)
    if n == 0:
        raise ValueError("digits.batches: expected a non-empty dataset, got 0 examples")
    if len(y) != n:
        raise ValueError(f"digits.batches: expected as many labels as examples, got {len(y)} "
                         f"labels for {n} examples")
    size = min(batch_size, n)
    order = rng.permutation(n)
    for i in range(0, n - size + 1, size):
        idx = order[i:i + size]
        yield x[idx], y[idx]


# ---- model ---------------------------------------------------------------------------------
def init(key, sizes=SIZES):
    """He-normal weights and zero biases for an MLP with layer widths ``sizes``."""
    keys = irax.random.split(key, len(sizes) - 1)
    he = initializers.he_normal()
    return [{"w": he(k, (m, n), jnp.float32), "b": jnp.zeros((n,), jnp.float32)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def predict(params, x):
    """Logits of a ReLU MLP."""
    for layer in params[:-1]:
        x = irax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    logits = predict(params, x)
    loss = optim.softmax_cross_entropy_with_integer_labels(logits, y).mean()
    return loss, jnp.mean(jnp.argmax(logits, axis=-1) == y)


def make_step(opt):
    @irax.jit
    def step(params, state, x, y):
        (loss, acc), grads = irax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, loss, acc
    return step


def accuracy(logits, y) -> float:
    return float(np.mean(np.argmax(np.asarray(logits), axis=-1) == y))


# ---- training ------------------------------------------------------------------------------
def train(data, *, epochs: int, batch_size: int, lr: float, seed: int, progress: bool):
    """Trains from ``irax.random.key(seed)``; returns the parameters, the jitted predict, the
    history (loss per step, train and test accuracy per epoch) and each step's seconds."""
    from tqdm import tqdm

    x_tr, y_tr, x_te, y_te = data
    opt = optim.adam(lr)
    params = init(irax.random.key(seed))
    state = opt.init(params)
    step, evaluate = make_step(opt), irax.jit(predict)
    rng = np.random.default_rng(seed)
    history = {"step_loss": [], "train_acc": [], "test_acc": []}
    times = []
    for epoch in range(1, epochs + 1):
        steps = list(batches(x_tr, y_tr, batch_size, rng))
        bar = tqdm(total=len(steps), desc=f"epoch {epoch:2d}/{epochs}", unit="step",
                   disable=not progress, file=sys.stdout, dynamic_ncols=True)
        accs = []
        for xb, yb in steps:
            start = time.perf_counter()
            params, state, loss, acc = step(params, state, xb, yb)
            loss, acc = float(loss), float(acc)     # waits for the step
            times.append(time.perf_counter() - start)
            history["step_loss"].append(loss)
            accs.append(acc)
            bar.set_postfix(loss=f"{loss:.4f}", acc=f"{acc:.3f}", refresh=False)
            bar.update()
        history["train_acc"].append(float(np.mean(accs)))
        history["test_acc"].append(accuracy(evaluate(params, x_te), y_te))
        bar.set_postfix(loss=f"{history['step_loss'][-1]:.4f}",
                        acc=f"{history['train_acc'][-1]:.3f}",
                        test_acc=f"{history['test_acc'][-1]:.3f}")
        bar.close()
        if not progress:
            print(f"epoch {epoch:2d}/{epochs}  loss {history['step_loss'][-1]:.4f}  "
                  f"train acc {history['train_acc'][-1]:.3f}  "
                  f"test acc {history['test_acc'][-1]:.3f}", flush=True)
    return params, evaluate, history, times


def report_times(times, stats: dict) -> None:
    steady = float(np.median(times[len(times) // 2:])) if len(times) > 1 else times[0]
    how = ("tracing + IREE compile" if stats["compiles"] else
           "tracing + loading the step from irax's compile cache")
    print(f"first step {times[0]:.2f} s ({how}); steady step {steady * 1e3:.2f} ms "
          f"({1 / steady:.0f} steps/s, median of the last {len(times) - len(times) // 2} "
          f"of {len(times)} steps); jit: {stats['compiles']} compilations, "
          f"{stats['memory_hits'] + stats['disk_hits']} cache hits")


def plot(history, steps_per_epoch: int, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    steps = np.arange(1, len(history["step_loss"]) + 1) / steps_per_epoch
    ax_loss.plot(steps, history["step_loss"], lw=0.8)
    ax_loss.set(xlabel="epoch", ylabel="training loss (per step)", yscale="log",
                title="softmax cross-entropy")
    epochs = np.arange(1, len(history["test_acc"]) + 1)
    ax_acc.plot(epochs, history["train_acc"], "o-", label="train")
    ax_acc.plot(epochs, history["test_acc"], "s-", label="test")
    ax_acc.axhline(THRESHOLD, color="gray", ls="--", lw=0.8, label=f"{THRESHOLD:.0%}")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", title="accuracy")
    ax_acc.legend()
    fig.suptitle("irax: MLP 64-256-128-10 on the 8x8 digits (Adam)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def deploy(evaluate, params, x_te, y_te, path: str):
    """Exports the jitted predict ``evaluate``, saves it to ``path`` and reloads it with
    ``irax.aot.load``; returns the test accuracy of the in-memory model, that of the
    reloaded artifact and the largest difference of their logits."""
    exported = irax.export.export(evaluate)(params, irax.ShapeDtypeStruct(x_te.shape, np.float32))
    exported.save(path)
    loaded = irax.aot.load(path)
    here, there = np.asarray(evaluate(params, x_te)), np.asarray(loaded(params, x_te))
    return accuracy(here, y_te), accuracy(there, y_te), float(np.abs(here - there).max())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    quick = os.environ.get("DIGITS_QUICK", "") not in ("", "0")
    ap.add_argument("--quick", action="store_true", default=quick,
                    help="3 epochs and no accuracy threshold (for tests; or DIGITS_QUICK=1)")
    ap.add_argument("--epochs", type=int, default=None, help="default: 40 (3 with --quick)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=".", help="directory for the PNG and the .vmfb")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    epochs = args.epochs or (3 if args.quick else 40)
    os.makedirs(args.out, exist_ok=True)

    start = time.perf_counter()
    data = load(args.seed)
    x_tr, _, x_te, y_te = data
    print(f"digits: {len(x_tr)} training and {len(x_te)} test images of 8x8 pixels; "
          f"MLP {'-'.join(map(str, SIZES))}, Adam lr {args.lr}, batch {args.batch_size}")
    # The step runs hundreds of times: compile it before its first call. (By default jit
    # interprets the first calls of a small program while IREE compiles it in the
    # background, which pays off for functions called a few times.)
    before = irax.compile_stats()
    with irax.config.override("irax_tiered_jit", False):
        params, evaluate, history, times = train(
            data, epochs=epochs, batch_size=args.batch_size, lr=args.lr, seed=args.seed,
            progress=not args.no_progress)
    trained = time.perf_counter()
    report_times(times, {k: v - before[k] for k, v in irax.compile_stats().items()})

    png = os.path.join(args.out, "digits_training.png")
    plot(history, max(1, len(x_tr) // args.batch_size), png)
    print(f"curves: {os.path.abspath(png)}")

    vmfb = os.path.join(args.out, "digits_predict.vmfb")
    plotted = time.perf_counter()
    acc, reloaded, diff = deploy(evaluate, params, x_te, y_te, vmfb)
    done = time.perf_counter()
    print(f"exported predict: {os.path.abspath(vmfb)} ({os.path.getsize(vmfb) // 1024} KiB); "
          f"reloaded with irax.aot.load: test accuracy {reloaded:.2%} (logits within "
          f"{diff:.1e} of the model's)")
    print(f"test accuracy {acc:.2%} after {epochs} epochs; {done - start:.1f} s in all "
          f"(training {trained - start:.1f} s, export and reload {done - plotted:.1f} s)")
    if reloaded != acc:
        print(f"FAIL: the reloaded artifact's accuracy {reloaded:.4f} differs from the "
              f"model's {acc:.4f}", file=sys.stderr)
        return 1
    if not args.quick and acc < THRESHOLD:
        print(f"FAIL: test accuracy {acc:.2%} is below {THRESHOLD:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
