"""Compute the PolicyEngine UK side of the uk_income_tax / uk_ni differential.

Writes JSON (path in argv[1]) with PolicyEngine's income tax on a grid of
annual employment incomes (0 to 200,000 in steps of 1,000, and every band
threshold of the year -1, 0 and +1) for tax years 2021/22 to 2025/26, rUK
and Scotland, and its Class 1 NI on weekly earnings. The thresholds below
are grid points only (the gross incomes where HMRC's published bands start,
assuming the standard allowance); no expected result is written here.
Used by the Go test in shared/calc (policyengine_test.go), never shipped.
"""
import json
import sys

from policyengine_uk import Simulation

YEARS = [2021, 2022, 2023, 2024, 2025]  # PolicyEngine's 2021 is tax year 2021/22
COMMON = [12570, 100000, 125140, 150000]
RUK = {y: [50270] for y in YEARS}
SCOTLAND = {  # gross incomes where the starter, basic, intermediate, higher, advanced bands end
    2021: [14667, 25296, 43662],
    2022: [14732, 25688, 43662],
    2023: [14732, 25688, 43662],
    2024: [14876, 26561, 43662, 75000],
    2025: [15397, 27491, 43662, 75000],
}
NI_WEEKLY = {  # HMRC's weekly PT, ST and UEL of the year
    2021: [184, 170, 967],
    2022: [190, 175, 967, 242],
    2023: [242, 175, 967],
    2024: [242, 175, 967],
    2025: [242, 96, 967],
}


def grid(thresholds, top, step):
    points = set(range(0, top + 1, step))
    for t in thresholds:
        points.update({t - 1, t, t + 1})
    return sorted(p for p in points if 0 <= p <= top)


def simulate(year, incomes, country, variables):
    people = {f"p{i}": {"age": {year: 40}, "employment_income": {year: inc}} for i, inc in enumerate(incomes)}
    households = {f"h{i}": {"members": [f"p{i}"], "country": {year: country}} for i in range(len(incomes))}
    benunits = {f"b{i}": {"members": [f"p{i}"]} for i in range(len(incomes))}
    sim = Simulation(situation={"people": people, "households": households, "benunits": benunits})
    return {v: [float(x) for x in sim.calculate(v, year)] for v in variables}


def main(out):
    result = {"policyengineUk": __import__("policyengine_uk").__version__ if hasattr(__import__("policyengine_uk"), "__version__") else "", "incomeTax": [], "ni": []}
    for year in YEARS:
        tax_year = f"{year}/{(year + 1) % 100:02d}"
        for region, country, extra in (("rUK", "ENGLAND", RUK), ("scotland", "SCOTLAND", SCOTLAND)):
            incomes = grid(COMMON + extra[year], 200000, 1000)
            values = simulate(year, incomes, country, ["income_tax"])
            for income, tax in zip(incomes, values["income_tax"]):
                result["incomeTax"].append({"taxYear": tax_year, "region": region, "income": income, "incomeTax": tax})
            print(f"{tax_year} {region}: {len(incomes)} incomes", file=sys.stderr)
        weekly = grid(NI_WEEKLY[year], 3850, 50)
        values = simulate(year, [w * 52 for w in weekly], "ENGLAND", ["ni_class_1_employee", "ni_class_1_employer"])
        for w, ee, er in zip(weekly, values["ni_class_1_employee"], values["ni_class_1_employer"]):
            result["ni"].append({"taxYear": tax_year, "weeklyEarnings": w, "annualEmployee": ee, "annualEmployer": er})
        print(f"{tax_year} ni: {len(weekly)} weekly earnings", file=sys.stderr)
    with open(out, "w") as f:
        json.dump(result, f, indent=0)


if __name__ == "__main__":
    main(sys.argv[1])
