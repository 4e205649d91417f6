"""Train the dice network and export it to ONNX for `vision.dice` (OpenCV's DNN module runs it).

    pip install -e ".[train]"          # PyTorch (CPU) and onnx, for training only
    python -m vision.dice_model.train  # writes vision/models/dicenet-above.onnx, its value networks and logs
    python -m vision.dice_model.train --above 0  # the networks for photographs: dicenet.onnx, dicevalue*.onnx

Data: the tuning 70% of `../shared/data/real-dice/` (never the held-out 30%, see `data.split`; the dice of
the realism benchmark's held-out kinds in it are hidden, `faces.held_out_dice`) and seeded synthetic tables
from `vision.synth`. Everything is seeded (NumPy, PyTorch, the synthetic seeds), CPU only.
The network is a small CenterNet: per output cell (a quarter of the input) a die-centre score, the top face's
value 1..6, the die's box size and the centre's sub-cell offset. See docs/dice-model.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.dice import ABOVE, CROP_PX, PHOTOS, WHOLE_OVER_FACE, Networks, candidates
from vision.dice_model import above, data, faces


def _cbr(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class DiceNet(nn.Module):  # type: ignore[misc]
    """Encoder to 1/16, decoder back to 1/4 with skips; 11 output channels (see `data.CHANNELS`)."""

    def __init__(self) -> None:
        super().__init__()
        self.s1 = _cbr(3, 16, 2)
        self.s2 = nn.Sequential(_cbr(16, 24, 2), _cbr(24, 24))
        self.s3 = nn.Sequential(_cbr(24, 48, 2), _cbr(48, 48))
        self.s4 = nn.Sequential(_cbr(48, 64, 2), _cbr(64, 64), _cbr(64, 64, dilation=2))
        self.u3 = _cbr(64 + 48, 48)
        self.u2 = nn.Sequential(_cbr(48 + 24, 32), _cbr(32, 32))
        self.head = nn.Conv2d(32, data.CHANNELS, 1)
        with torch.no_grad():
            self.head.bias.zero_()
            self.head.bias[0] = -2.19  # start with "no die anywhere" (CenterNet's prior of 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = self.s2(self.s1(x))
        x3 = self.s3(x2)
        x4 = self.s4(x3)
        y3 = self.u3(torch.cat([F.interpolate(x4, scale_factor=2.0, mode="nearest"), x3], 1))
        y2 = self.u2(torch.cat([F.interpolate(y3, scale_factor=2.0, mode="nearest"), x2], 1))
        return self.head(y2)


class ValueNet(nn.Module):  # type: ignore[misc]
    """One die's crop (`vision.dice.CROP_PX` square) -> 7 scores: not a die, value 1..6."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            _cbr(3, 16), _cbr(16, 16), nn.MaxPool2d(2),
            _cbr(16, 32), _cbr(32, 32), nn.MaxPool2d(2),
            _cbr(32, 64), _cbr(64, 64), nn.MaxPool2d(2),
            _cbr(64, 128), _cbr(128, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )  # fmt: skip
        self.fc = nn.Linear(128, 7)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.body(x))


def _batch(samples: Sequence[data.Sample], device: str) -> tuple[torch.Tensor, list[dict[str, torch.Tensor]]]:
    images = np.stack([s.image for s in samples]).astype(np.float32) / 255.0
    x = torch.from_numpy(images).permute(0, 3, 1, 2).to(device)
    size = samples[0].image.shape[0]
    grid = (size // data.STRIDE, size // data.STRIDE)
    return x, [{k: torch.from_numpy(v) for k, v in data.targets(s, grid).items()} for s in samples]


def loss_fn(
    out: torch.Tensor, tgts: Sequence[dict[str, torch.Tensor]]
) -> tuple[torch.Tensor, dict[str, float]]:
    heat_logit = out[:, 0:1]
    gt = torch.stack([t["heat"] for t in tgts])
    weight = torch.stack([t["weight"] for t in tgts])
    p = torch.sigmoid(heat_logit).clamp(1e-4, 1 - 1e-4)
    pos = (gt > 0.999).float()
    # CenterNet's penalty-reduced focal loss.
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos)
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - gt) ** 4 * (1 - pos) * weight)
    n_pos = max(1.0, float(pos.sum()))
    l_heat = (pos_loss.sum() + neg_loss.sum()) / n_pos
    l_val, l_size, l_off, n = out.new_zeros(()), out.new_zeros(()), out.new_zeros(()), 0
    for i, t in enumerate(tgts):
        if len(t["index"]) == 0:
            continue
        flat = out[i].flatten(1)  # C x HW
        idx = t["index"].long()
        at = flat[:, idx].T  # K x C
        l_val = l_val + F.cross_entropy(at[:, 1:7], t["value"].long(), reduction="sum")
        l_size = l_size + F.l1_loss(at[:, 7:9], t["size"], reduction="sum")
        l_off = l_off + F.l1_loss(torch.sigmoid(at[:, 9:11]), t["offset"], reduction="sum")
        n += len(idx)
    n = max(n, 1)
    total = l_heat + (l_val + l_size + l_off) / n
    return total, {
        "heat": float(l_heat),
        "value": float(l_val) / n,
        "size": float(l_size) / n,
        "offset": float(l_off) / n,
    }


def export(model: nn.Module, path: Path, value: bool = False) -> None:
    """The network as ONNX at `path` (what the product runs) and its weights beside it (`.pt`, to train on
    from: `--init`; not shipped)."""
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), path.with_suffix(".pt"))
    if value:
        dummy = torch.zeros(2, 3, CROP_PX, CROP_PX)
        names, axes = ["scores"], {"image": {0: "n"}, "scores": {0: "n"}}
    else:
        dummy = torch.zeros(1, 3, 256, 256)
        names, axes = ["maps"], {"image": {2: "h", 3: "w"}, "maps": {2: "h4", 3: "w4"}}
    torch.onnx.export(
        model, (dummy,), str(path), input_names=["image"], output_names=names, opset_version=13,
        dynamic_axes=axes, dynamo=False,
    )  # fmt: skip


def _initial(model: nn.Module, init: Path | None) -> nn.Module:
    """`model` with the weights saved at `init`, to train on from there: a `.pt` that `export` wrote, or an
    exported network (`.onnx`, `from_onnx`)."""
    if init is None:
        return model
    if init.suffix == ".onnx":
        from_onnx(model, init)
    else:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    return model


def from_onnx(model: nn.Module, path: Path) -> None:
    """Load an exported network's weights into `model` (of the same class). The export folded each batch
    norm into its convolution, so each convolution takes the folded weights and its batch norm becomes the
    identity plus the folded bias, kept in eval mode while training (`_train_mode`): batch statistics would
    undo the folding."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    layers = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    if len(convs) != len(layers):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(layers)}")
    norms = {id(seq[0]): seq[1] for seq in model.modules()
             if isinstance(seq, nn.Sequential) and len(seq) >= 2 and isinstance(seq[0], nn.Conv2d)
             and isinstance(seq[1], nn.BatchNorm2d)}  # fmt: skip
    with torch.no_grad():
        for node, conv in zip(convs, layers, strict=True):
            w = torch.from_numpy(weights[node.input[1]].copy())
            b = torch.from_numpy(weights[node.input[2]].copy()) if len(node.input) > 2 else None
            conv.weight.copy_(w)
            bn = norms.get(id(conv))
            if bn is not None:
                bn.weight.fill_(1.0)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                bn.bias.copy_(b if b is not None else torch.zeros_like(bn.bias))
            elif b is not None and conv.bias is not None:
                conv.bias.copy_(b)
        for name, param in model.named_parameters():
            if isinstance(getattr(model, name.split(".")[0], None), nn.Linear) and name in weights:
                param.copy_(torch.from_numpy(weights[name].copy()))
    model.frozen_norms = True


def _train_mode(model: nn.Module) -> None:
    """Training mode, but for the batch norms of a network loaded from an export (`from_onnx`)."""
    model.train()
    if getattr(model, "frozen_norms", False):
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()


def with_finders_false_alarms(sample: data.Sample, nets: Networks) -> data.Sample:
    """The trained finder's candidates (down to `vision.dice.CANDIDATE`) that lie on no labelled die."""
    side = (
        float(np.median(np.mean(sample.boxes[:, 2:] - sample.boxes[:, :2], axis=1)))
        if len(sample.boxes)
        else 0
    )
    die_px = side / WHOLE_OVER_FACE if side else None
    found = [c.box for c in candidates(sample.image, die_px=die_px, read_values=False, nets=nets)]
    return data.with_hard_negatives(sample, found)


def _progress(  # noqa: PLR0917
    kind: str,
    log: list[dict[str, float]],
    running: dict[str, float],
    values: Mapping[str, float],
    step: int,
    steps: int,
    every: int,
    t0: float,
) -> None:
    """Smooth this step's `values` into `running`; every `every` steps (and the last) log and print them."""
    for k, v in values.items():
        running[k] = 0.98 * running.get(k, v) + 0.02 * v
    if step % every == 0 or step == steps:
        line = {"step": step, "s": round(time.perf_counter() - t0, 1)}
        line.update({k: round(v, 4) for k, v in running.items()})
        log.append(line)
        print(json.dumps({kind: line}), flush=True)


CropPool = tuple[tuple[np.ndarray, ...], tuple[int, ...]]


def _pool_crops(pool: CropPool, rng: np.random.Generator, n: int) -> tuple[list[np.ndarray], list[int]]:
    """`n` crops of the pool (top faces rectified from above), mirrored half the time and recoloured."""
    crops, labels = pool
    out, ys = [], []
    for i in rng.integers(0, len(crops), n).tolist():
        c = crops[i]
        if rng.random() < 0.5:
            c = np.ascontiguousarray(c[:, ::-1])
        out.append(data.photometric(c, rng))
        ys.append(labels[i])
    return out, ys


def train_values(
    mix: data.Mixture,
    *,
    steps: int,
    batch: int,
    seed: int,
    out: Path,
    pool: CropPool | None = None,
    pool_share: float = 0.0,
    init: Path | None = None,
    lr: float = 3e-3,
) -> list[dict[str, float]]:
    """The value network, on jittered die crops and not-a-die crops (`data.value_crops`), and `pool_share`
    of each batch from `pool` (top faces rectified from above, `vision.dice_model.above`)."""
    rng = np.random.default_rng(seed + 1)
    model = _initial(ValueNet(), init)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    log: list[dict[str, float]] = []
    running: dict[str, float] = {}
    t0 = time.perf_counter()
    for step in range(1, steps + 1):
        _train_mode(model)
        crops: list[np.ndarray] = []
        labels: list[int] = []
        if pool is not None and pool_share > 0:
            crops, labels = _pool_crops(pool, rng, round(batch * pool_share))
        while len(crops) < batch:
            c, y = data.value_crops(mix.pick(rng), rng)
            crops += c
            labels += y
        x = torch.from_numpy(np.stack(crops[:batch]).astype(np.float32) / 255.0).permute(0, 3, 1, 2)
        y_t = torch.tensor(labels[:batch])
        logits = model(x)
        loss = F.cross_entropy(logits, y_t, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        acc = float((logits.argmax(1) == y_t).float().mean())
        _progress("value", log, running, {"loss": float(loss), "accuracy": acc}, step, steps, 100, t0)
    export(model, out, value=True)
    return log


# A view from above shows every die at the reader's own scale (`vision.topview.PX_PER_MM`): training keeps it
# near that size.
ABOVE_DIE_RANGE = (22.0, 36.0)


def train_detector(
    mix: data.Mixture,
    *,
    steps: int,
    batch: int,
    crop: int,
    seed: int,
    out: Path,
    init: Path | None = None,
    lr: float = 3e-3,
) -> list[dict[str, float]]:
    """The die-finding network, on augmented crops of whole photos and tables (`data.augment`)."""
    rng = np.random.default_rng(seed)
    model = _initial(DiceNet(), init)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    log: list[dict[str, float]] = []
    t0 = time.perf_counter()
    running: dict[str, float] = {}
    for step in range(1, steps + 1):
        _train_mode(model)
        samples = []
        for _ in range(batch):
            sample, sizes = mix.pick_part(rng)
            samples.append(data.augment(sample, rng, crop, die_range=sizes))
        x, tg = _batch(samples, "cpu")
        loss, parts = loss_fn(model(x), tg)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        _progress("detector", log, running, parts, step, steps, 50, t0)
        if step % 500 == 0:
            export(model, out)
    export(model, out)
    return log


def _value_init(folder: Path | None, out: Path) -> Path | None:
    """The weights in `folder` for the value network written to `out`: its `.pt`, else its `.onnx`."""
    if folder is None:
        return None
    for suffix in (".pt", ".onnx"):
        path = folder / out.with_suffix(suffix).name
        if path.is_file():
            return path
    raise FileNotFoundError(f"no {out.stem}.pt or .onnx in {str(folder)!r} to start from")


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=Path, default=data.REAL_DICE)
    ap.add_argument(
        "--out", type=Path,
        help="the finder's file, the value networks' beside it (default: vision.dice.ABOVE's, or with "
        "--above 0 PHOTOS')",
    )
    ap.add_argument("--only", choices=("detector", "values"), help="train one of the two networks")
    ap.add_argument("--steps", type=int, default=3000, help="detector steps")
    ap.add_argument("--value-steps", type=int, default=5000)
    ap.add_argument("--value-nets", type=int, default=2, help="value networks to train (they vote)")
    ap.add_argument("--value-net", type=int, default=0, help="train only this one (1..N)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--value-batch", type=int, default=128)
    ap.add_argument("--crop", type=int, default=256)
    ap.add_argument("--synthetic", type=int, default=90, help="synthetic tables rendered for training")
    ap.add_argument("--closeups", type=int, default=300, help="synthetic close-ups of a few dice")
    ap.add_argument("--above", type=int, default=300, help="synthetic tables seen from above")
    ap.add_argument("--above-cache", type=Path, help="keep the tables from above in this file, or read them")
    ap.add_argument(
        "--mine", action="store_true",
        help="the current finder reads the tables from above too: its false alarms become no-die crops",
    )
    ap.add_argument("--faces", type=Path, default=faces.LIBRARY, help="the real-dice face library's folder")
    ap.add_argument(
        "--drawn-only", action="store_true",
        help="dress the tables' dice in drawn looks only, not in faces cut from the real photographs",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", type=Path, help="start from these weights (.pt, or an exported .onnx)")
    ap.add_argument(
        "--value-init", type=Path,
        help="start the value networks from the same-named .pt or .onnx files in this folder",
    )
    ap.add_argument("--lr", type=float, default=3e-3, help="the one-cycle schedule's top learning rate")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(list(argv))
    if args.out is None:
        args.out = (ABOVE if args.above else PHOTOS).finder
    nets = Networks(args.out)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    photos = data.labelled_photos(args.photos)
    if not photos:
        print(f"no labelled photos in {args.photos}", file=sys.stderr)
        return 2
    tune, held = data.split(list(photos))
    t0 = time.perf_counter()
    real = data.real_samples(tune, args.photos, faces.held_out_dice(args.faces))
    tables = list(data.synthetic_samples(args.synthetic))
    closeups = list(data.synthetic_closeups(args.closeups))
    looks = None if args.drawn_only else faces.training_looks(args.faces)
    views = above.cached_tables(args.above_cache, args.above, looks, mine=args.mine)
    pool: CropPool = (
        tuple(c for t in views for c in t.crops), tuple(y for t in views for y in t.labels)
    )
    print(
        f"{len(views)} tables from above ({sum(len(t.sample.boxes) for t in views)} dice, "
        f"{len(pool[0])} value crops; faces cut from photographs: {'yes' if looks else 'no'})",
        flush=True,
    )
    print(
        f"{len(real)} tuning photos ({sum(len(s.boxes) for s in real)} dice; {len(held)} held out, unused), "
        f"{len(tables)} synthetic tables ({sum(len(s.boxes) for s in tables)} dice), "
        f"{len(closeups)} close-ups in {time.perf_counter() - t0:.0f} s",
        flush=True,
    )
    about = {"args": {k: str(v) for k, v in vars(args).items()}, "torch": torch.__version__}
    if args.only in (None, "detector"):
        mix = data.Mixture((
            data.Part(0.35, tuple(real)), data.Part(0.1, tuple(tables)), data.Part(0.1, tuple(closeups)),
            data.Part(0.45, tuple(t.sample for t in views), ABOVE_DIE_RANGE),
        ))  # fmt: skip
        log = train_detector(
            mix, steps=args.steps, batch=args.batch, crop=args.crop, seed=args.seed, out=args.out,
            init=args.init, lr=args.lr,
        )
        args.out.with_suffix(".log.json").write_text(json.dumps({**about, "log": log}, indent=1))
        print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")
    if args.only in (None, "values"):
        t0 = time.perf_counter()
        real = [with_finders_false_alarms(s, nets) for s in real]
        tables = [with_finders_false_alarms(s, nets) for s in tables]
        print(
            f"the finder's false alarms, as hard negatives: {sum(len(s.hard) for s in real)} in the photos, "
            f"{sum(len(s.hard) for s in tables)} on the tables ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
        mix = data.Mixture(
            (data.Part(0.65, tuple(real)), data.Part(0.25, tuple(tables)), data.Part(0.1, tuple(closeups)))
        )
        wanted = [args.value_net] if args.value_net else list(range(1, args.value_nets + 1))
        for k in wanted:
            # Members differ only in their seeds; together they vote (vision.dice averages their scores).
            out = nets.value(k)
            torch.manual_seed(args.seed + k - 1)
            log = train_values(
                mix, steps=args.value_steps, batch=args.value_batch, seed=args.seed + 100 * (k - 1), out=out,
                pool=pool, pool_share=0.5, init=_value_init(args.value_init, out), lr=args.lr,
            )
            out.with_suffix(".log.json").write_text(json.dumps({**about, "member": k, "log": log}, indent=1))
            print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
