/// A subject's number in one ``Engine``: lets a caller that feeds many fixes skip the
/// engine's lookup of the subject's name (a string hash per fix).
///
/// ```swift
/// var engine = Engine()
/// let truck = engine.handle(for: "truck-7")         // once per subject
/// var events: [TransitionEvent] = []
/// for fix in truckFixes {                          // fix.subject == "truck-7"
///     events.removeAll(keepingCapacity: true)
///     try engine.process(fix, subject: truck, into: &events)
/// }
/// ```
///
/// A handle is valid for the engine that issued it for as long as that engine exists
/// (``Engine/resetSubject(_:)`` keeps it valid); copies of the engine share it. Using it with
/// another engine, or with a fix of another subject, is rejected with
/// ``GeofencingError/invalidFix(subject:field:reason:)`` (field `subject`) — never silently
/// applied to the wrong subject.
public struct SubjectHandle: Sendable, Hashable {
    /// The subject's index in its engine (order of first appearance, from 0).
    public let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }
}
