"""The CSV block a benchmark prints after its table, read back for the plotting scripts."""
import csv
import io


def read_csv_block(path, header_prefix):
    """The rows (dicts) of the first CSV block in the file at path: from the line starting with
    header_prefix up to the first blank line, '#' line or line with another number of fields (a
    log that goes on after the block). A plain CSV file is read the same way."""
    lines = open(path).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_prefix))
    fields = len(next(csv.reader([lines[start]])))
    block = []
    for line in lines[start:]:
        if not line.strip() or line.startswith("#") or len(next(csv.reader([line]))) != fields:
            break
        block.append(line)
    return list(csv.DictReader(io.StringIO("\n".join(block))))
