import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

@Suite("Authorisation and device settings")
struct AuthorizationTests {
    @Test("the delegate is told the current authorisation when it is set")
    func initialAuthorization() async {
        let device = makeDevice { $0.authorization = .notDetermined }
        let (m, rec) = await manager(on: device)
        #expect(rec.authorizations == [.notDetermined])
        #expect(await m.authorizationStatus == .notDetermined)
    }

    @Test("a region added while notDetermined starts producing events the moment it becomes authorizedAlways")
    func registeredBeforeAuthorization() async throws {
        let device = makeDevice {
            $0.authorization = .notDetermined
            $0.promptResponse = .allowAlways
        }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("later"))
        #expect(rec.starts.isEmpty)
        #expect(await m.monitoredRegions.count == 1)
        try await device.feed(walkIn() + walkOut())
        #expect(rec.enters.isEmpty && rec.exits.isEmpty, "no events before authorisation")
        await m.requestAlwaysAuthorization()
        #expect(rec.authorizations == [.notDetermined, .authorizedAlways])
        #expect(rec.starts == ["later"])
        try await device.feed(walkIn(start: 100))
        #expect(rec.enters == ["later"])
    }

    @Test("authorizedWhenInUse delivers no region events while the app is in the background")
    func whenInUseBackground() async throws {
        let device = makeDevice {
            $0.authorization = .authorizedWhenInUse
            $0.appState = .background
        }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("shop"))
        try await device.feed(walkIn() + walkOut())
        #expect(rec.enters.isEmpty && rec.exits.isEmpty)
        await device.update { $0.appState = .foreground }
        try await device.feed(walkIn(start: 100))
        #expect(rec.enters == ["shop"], "in use, the same authorisation delivers")
    }

    @Test("authorizedAlways delivers in the background")
    func alwaysBackground() async throws {
        let device = makeDevice { $0.appState = .background }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("shop"))
        try await device.feed(walkIn())
        #expect(rec.enters == ["shop"])
    }

    @Test("denied: monitoringDidFailFor with regionMonitoringDenied; the region stays registered and no events come")
    func denied() async throws {
        let device = makeDevice { $0.authorization = .denied }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        #expect(rec.failures == [.fail("a", .regionMonitoringDenied(.denied))])
        #expect(await m.monitoredRegions.count == 1)
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty)
    }

    @Test("restricted gives the denied error naming restricted")
    func restricted() async {
        let device = makeDevice { $0.authorization = .restricted }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        #expect(rec.failures == [.fail("a", .regionMonitoringDenied(.restricted))])
    }

    @Test("revoking authorisation reports the change and the denied error for each region, then silence")
    func revoke() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        await device.update { $0.authorization = .denied }
        #expect(rec.authorizations == [.authorizedAlways, .denied])
        #expect(rec.failures == [.fail("a", .regionMonitoringDenied(.denied))])
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty)
    }

    @Test("location services off: the app reads denied and gets no events")
    func servicesOff() async throws {
        let device = makeDevice { $0.locationServicesEnabled = false }
        let (m, rec) = await manager(on: device)
        #expect(await m.authorizationStatus == .denied)
        await m.startMonitoring(for: region("a"))
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty)
        await device.update { $0.locationServicesEnabled = true }
        #expect(rec.authorizations == [.denied, .authorizedAlways])
        try await device.feed(walkIn(start: 100))
        #expect(rec.enters == ["a"])
    }

    @Test("airplane mode: no positions, no events")
    func airplane() async throws {
        let device = makeDevice { $0.airplaneMode = true }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty)
        await m.requestState(for: region("a"))
        #expect(rec.states.isEmpty, "no positions, no known state: the request waits (rule 37)")
    }

    @Test("background refresh off: no events in the background, events in the foreground")
    func backgroundRefreshOff() async throws {
        let device = makeDevice {
            $0.backgroundRefreshEnabled = false
            $0.appState = .background
        }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        try await device.feed(walkIn() + walkOut())
        #expect(rec.enters.isEmpty && rec.exits.isEmpty)
        await device.update { $0.appState = .foreground }
        try await device.feed(walkIn(start: 100))
        #expect(rec.enters == ["a"])
    }

    @Test("approximate location only: no region events")
    func approximateLocation() async throws {
        let device = makeDevice { $0.preciseLocation = false }
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty)
    }

    @Test("requestWhenInUseAuthorization works only when not determined and grants when-in-use")
    func whenInUsePrompt() async {
        let device = makeDevice {
            $0.authorization = .notDetermined
            $0.promptResponse = .allowAlways
        }
        let (m, _) = await manager(on: device)
        await m.requestWhenInUseAuthorization()
        #expect(await m.authorizationStatus == .authorizedWhenInUse)
        await device.update { $0.promptResponse = .deny }
        await m.requestWhenInUseAuthorization()
        #expect(await m.authorizationStatus == .authorizedWhenInUse, "no second prompt")
    }

    @Test("the upgrade from when-in-use to always is asked once")
    func upgradeOnce() async {
        let device = makeDevice {
            $0.authorization = .authorizedWhenInUse
            $0.promptResponse = .deny
        }
        let (m, _) = await manager(on: device)
        await m.requestAlwaysAuthorization()
        #expect(await m.authorizationStatus == .authorizedWhenInUse)
        await device.update { $0.promptResponse = .allowAlways }
        await m.requestAlwaysAuthorization()
        #expect(await m.authorizationStatus == .authorizedWhenInUse)
    }

    @Test("no prompt while the app is in the background; a denial sticks")
    func promptNeedsForeground() async {
        let device = makeDevice {
            $0.authorization = .notDetermined
            $0.appState = .background
        }
        let (m, _) = await manager(on: device)
        await m.requestAlwaysAuthorization()
        #expect(await m.authorizationStatus == .notDetermined)
        await device.update {
            $0.appState = .foreground
            $0.promptResponse = .deny
        }
        await m.requestAlwaysAuthorization()
        #expect(await m.authorizationStatus == .denied)
        await device.update { $0.promptResponse = .allowAlways }
        await m.requestAlwaysAuthorization()
        #expect(await m.authorizationStatus == .denied)
    }
}
