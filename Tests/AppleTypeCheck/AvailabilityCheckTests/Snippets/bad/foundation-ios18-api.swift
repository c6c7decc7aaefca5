// Foundation's availability comes from FoundationAvailability.tsv (Linux's build has Apple's none).
// Xcode: 'dates(byAdding:value:startingAt:in:wrappingComponents:)' is only available in iOS 18.0 or newer
// expect: iOS 17.0] 'Calendar.dates(byAdding:value:startingAt:in:wrappingComponents:)' is only available in iOS 18.0
import Foundation

func nextDays(from start: Date) -> [Date] {
    Array(Calendar.current.dates(byAdding: .day, value: 1, startingAt: start).prefix(3))
}
