package asof

import "time"

// budgetDays are the days Ireland's Minister for Finance presented the
// budget, by calendar year, each from a page that states it:
//
//	2019-10-08 Budget 2020: thoughts.maples.com/post/102genq/irish-budget-2021
//	2020-10-13 Budget 2021: the same page
//	2021-10-12 Budget 2022: whatsnew.citizensinformation.ie/2021/10/
//	2024-10-01 Budget 2025: irishexaminer.com/news/politics/arid-41429419.html
//	2025-10-07 Budget 2026: rte.ie/news/budget-2026/2025/1007/1537276-budget-hospitality
//
// No source stating the days of Budget 2023 and Budget 2024 (presented in
// 2022 and 2023) was found, so those years have none.
var budgetDays = map[int]time.Time{
	2019: time.Date(2019, time.October, 8, 0, 0, 0, 0, time.UTC),
	2020: time.Date(2020, time.October, 13, 0, 0, 0, 0, time.UTC),
	2021: time.Date(2021, time.October, 12, 0, 0, 0, 0, time.UTC),
	2024: time.Date(2024, time.October, 1, 0, 0, 0, 0, time.UTC),
	2025: time.Date(2025, time.October, 7, 0, 0, 0, 0, time.UTC),
}

// BudgetDay returns the day an Irish budget was presented in year, where
// it is known.
func BudgetDay(year int) (time.Time, bool) {
	d, ok := budgetDays[year]
	return d, ok
}
