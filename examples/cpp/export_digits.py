"""Writes scikit-learn's bundled 8x8 digits (1797 images) to a CSV file for the C++ example.

Each line is one image: 64 pixel values (integers 0..16, row by row) and then the label (0..9), separated
by commas, with no header. train_digits reads this file; it needs no Python at training time.

    /usr/bin/python3 examples/cpp/export_digits.py [OUT]      # OUT defaults to digits.csv
"""
import sys

from sklearn.datasets import load_digits


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "digits.csv"
    x, y = load_digits(return_X_y=True)
    with open(out, "w", encoding="ascii") as f:
        for row, label in zip(x, y):
            f.write(",".join(str(int(v)) for v in row) + f",{int(label)}\n")
    print(f"wrote {len(y)} digits ({x.shape[1]} features + label) to {out}")


if __name__ == "__main__":
    main()
