extension PresentationModel {
    /// One presentable, narrow: most are views, so what only a container or a split view uses takes little room
    /// when unused (docs/PERFORMANCE.md, issue 11: an idle session).
    struct Node: Hashable, Sendable {
        var screen: Screen
        // Stored in this order, the one-byte and four-byte fields fill the screen's padding.
        private var isModal = false
        private var tab: Int32 = 0
        /// What it hangs from, `nil` for the window root (``placement``).
        private var parent: PresentableID?
        /// Stack entries (bottom to top) or tabs (in order).
        var children: [PresentableID] = []
        /// The modal presented over this presentable.
        var presented: PresentableID?
        /// A split view's master and detail; empty for anything else.
        private var sides: [PresentableID?] = []

        init(screen: Screen, placement: Placement) {
            self.screen = screen
            self.placement = placement
        }

        var placement: Placement {
            get {
                guard let parent else { return .window }
                return isModal ? .presented(over: parent) : .child(of: parent)
            }
            set {
                switch newValue {
                case .window: (parent, isModal) = (nil, false)
                case .child(let of): (parent, isModal) = (of, false)
                case .presented(let over): (parent, isModal) = (over, true)
                }
            }
        }

        /// The selected tab's index (tab indices are checked against the children, so they fit 32 bits).
        var selectedTab: Int {
            get { Int(tab) }
            set { tab = Int32(clamping: newValue) }
        }

        var master: PresentableID? {
            get { sides.first ?? nil }
            set { setSides(newValue, detail) }
        }

        var detail: PresentableID? {
            get { sides.count > 1 ? sides[1] : nil }
            set { setSides(master, newValue) }
        }

        private mutating func setSides(_ master: PresentableID?, _ detail: PresentableID?) {
            sides = master == nil && detail == nil ? [] : [master, detail]
        }
    }

    /// How a presentable hangs off its parent, for the rendering.
    enum Role {
        case window
        case stackEntry
        case tab(index: Int, selected: Bool)
        case master
        case detail
        case modal
    }
}
