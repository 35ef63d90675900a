// movie-flowd: a Flowd daemon running the movie demo (MovieDemoApplication: AppFlow over remote steppers served by the
// login and movie services). Options: see FlowdOptions (`movie-flowd --help`); logs go to standard error.

import FlowDaemon
import MovieDemo

await Flowd.main(MovieDemoApplication())
