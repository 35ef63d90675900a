/// Which repetitions of a log line that a client can repeat without end are written at their level: the 1st, 10th,
/// 100th… (a refused key retries every ~100 ms, a stuck peer drops every message, a full disk fails every write).
enum RepeatedWarning {
    /// Whether the `count`th repetition is logged: 1, 10, 100…
    static func isLogged(_ count: Int) -> Bool {
        var power = count
        while power > 1, power % 10 == 0 { power /= 10 }
        return power == 1
    }
}
