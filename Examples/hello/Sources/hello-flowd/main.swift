// hello-flowd: the hello application's daemon. Flags, config file, logging, metrics and signals: `hello-flowd --help`.

import FlowDaemon
import HelloFlows

await Flowd.main(HelloApplication())
