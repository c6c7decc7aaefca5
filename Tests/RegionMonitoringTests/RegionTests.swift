import Foundation
import Geodesy
import Testing

@testable import RegionMonitoring

@Suite("Regions")
struct RegionTests {
    @Test("a circular region contains points within its radius, geodesically")
    func circleContains() {
        let r = region("r", radius: 100)
        #expect(r.contains(offset(99.9)))
        #expect(!r.contains(offset(100.1)))
        #expect(r.monitoredRegion.identifier == "r")
        #expect(r.monitoredRegion.radius == 100)
    }

    @Test("a polygon region contains its inside and not its hole")
    func polygonContains() {
        let ring = [offset(-100, -100), offset(-100, 100), offset(100, 100), offset(100, -100)]
        let hole = [offset(-20, -20), offset(-20, 20), offset(20, 20), offset(20, -20)]
        let p = PolygonRegion(exterior: ring, holes: [hole], identifier: "block")
        #expect(p.contains(offset(50, 50)))
        #expect(!p.contains(paris))
        #expect(!p.contains(offset(150)))
        #expect(p.monitoredRegion.radius == nil)
    }

    @Test("both region kinds can be monitored; not without hardware")
    func availability() {
        #expect(LocationManager.isMonitoringAvailable(for: CircularRegion.self))
        #expect(LocationManager.isMonitoringAvailable(for: PolygonRegion.self))
        var s = DeviceSettings()
        s.locationServicesEnabled = false
        s.authorization = .denied
        #expect(
            LocationManager.isMonitoringAvailable(for: CircularRegion.self, on: s),
            "availability ignores permissions and switches")
        s.hasLocationHardware = false
        #expect(!LocationManager.isMonitoringAvailable(for: CircularRegion.self, on: s))
    }
}
