// The names docs/ios.md's code blocks take from their prose ("the manager", "a shop"), so that
// check-apple.py can type-check each block as it is written. Nothing here runs: every value
// traps. A block that needs a new name adds it here, with the type the prose gives it.
import CoreLocationBridge
import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import UIKit
import UserNotifications

private func documented<T>() -> T { fatalError("docs/ios.md snippet context: type-checking only") }

/// The app's location manager (section 3 onwards).
@MainActor var manager: LocationManager { documented() }
/// The Core Location backend the manager runs on.
@MainActor var backend: CoreLocationManagerBackend { documented() }
/// The app's delegate that posts notifications (section 6).
@MainActor var alerts: any LocationManagerDelegate { documented() }
/// A shop's centre.
@MainActor var shop: Coordinate { documented() }
/// The shops, as a planner catalogue (section 7).
@MainActor var catalogue: Catalogue { documented() }
/// The app's Application Support folder.
@MainActor var appSupport: URL { documented() }
/// The first fix the app has.
@MainActor var firstFix: LocationFix { documented() }
/// A fix inside a shop (section 10).
@MainActor var fixInsideShop: LocationFix { documented() }

/// Posts a notification for each entry.
@MainActor func notify(_ events: [PlannerEvent]) {}
/// Starts the planner once authorised (section 3).
@MainActor func startPlanningIfAuthorized(_ status: AuthorizationStatus) async {}
/// Tells the user that Precise Location is off.
@MainActor func showPreciseLocationHint() {}
/// Background App Refresh warnings (section 5).
@MainActor func showWarning(_ text: String) {}
@MainActor func hideWarning() {}

/// The app under test (section 10).
enum MyApp {
    static func launch(_ manager: LocationManager) async {}
}
