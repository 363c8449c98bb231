#!/usr/bin/python3
"""A copy of a torchvision network CSV whose model_family is each network's architecture family, so a learned
bundle can be trained and evaluated with one family held out (`perfpred train/eval --holdout-family resnet`).

    /usr/bin/python3 tools/tv_families.py IN.csv OUT.csv

The converted sets call every torchvision network "torchvision"; here ResNet-18..152 are `resnet`, Wide ResNets
`wide_resnet`, ResNeXts `resnext`, VGGs `vgg`, DenseNets `densenet`, MobileNets `mobilenet`, MNASNets `mnasnet`,
ShuffleNets `shufflenet`, SqueezeNets `squeezenet`, and the rest (AlexNet, GoogLeNet, Inception) `other`, from
the row's recipe (`torchvision:resnet50`). Model paths become absolute (the copy lives elsewhere), and the
sidecar IN.csv.meta.json (licence, sources) is copied beside OUT.csv. Prints the rows per family.
"""
import csv
import os
import shutil
import sys

# Longest prefixes first: wide_resnet50_2 and resnext50 are not ResNets here.
FAMILIES = ("wide_resnet", "resnext", "resnet", "vgg", "densenet", "mobilenet", "mnasnet", "shufflenet", "squeezenet")


def family(recipe):
    """The architecture family of a torchvision recipe ("torchvision:resnet50" -> "resnet"); "other" otherwise."""
    name = (recipe or "").split(":")[-1]
    return next((f for f in FAMILIES if name.startswith(f)), "other")


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: tv_families.py IN.csv OUT.csv")
    src, dst = argv[1], argv[2]
    with open(src, newline="") as fh:
        lines = fh.read().splitlines(True)
    comments = [l for l in lines if l.startswith("#")]
    reader = csv.DictReader(l for l in lines if not l.startswith("#"))
    if not reader.fieldnames or "model_family" not in reader.fieldnames or "recipe" not in reader.fieldnames:
        sys.exit(f"tv_families: {src}: no model_family and recipe columns")
    base = os.path.dirname(os.path.abspath(src))
    counts = {}
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    with open(dst, "w", newline="") as fh:
        fh.writelines(comments)
        w = csv.DictWriter(fh, fieldnames=reader.fieldnames, lineterminator="\n")
        w.writeheader()
        for row in reader:
            if row.get("model"):
                row["model"] = os.path.normpath(os.path.join(base, row["model"]))
            row["model_family"] = family(row.get("recipe"))
            counts[row["model_family"]] = counts.get(row["model_family"], 0) + 1
            w.writerow(row)
    if os.path.exists(src + ".meta.json"):
        shutil.copyfile(src + ".meta.json", dst + ".meta.json")
    print(" ".join(f"{f}:{n}" for f, n in sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv)
