export namespace adapter {
	
	export class VersionInfo {
	    version: string;
	    goVersion: string;
	    platform: string;
	    commit: string;
	
	    static createFrom(source: any = {}) {
	        return new VersionInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.goVersion = source["goVersion"];
	        this.platform = source["platform"];
	        this.commit = source["commit"];
	    }
	}

}

export namespace bounds {
	
	export class Number {
	    min?: number;
	    max?: number;
	    min_exclusive?: boolean;
	    integer?: boolean;
	    unit?: string;
	
	    static createFrom(source: any = {}) {
	        return new Number(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.min = source["min"];
	        this.max = source["max"];
	        this.min_exclusive = source["min_exclusive"];
	        this.integer = source["integer"];
	        this.unit = source["unit"];
	    }
	}

}

export namespace checkpoint {
	
	export class Change {
	    path: string;
	    status: string;
	    binary?: boolean;
	    large?: boolean;
	    secret?: boolean;
	    added: number;
	    removed: number;
	
	    static createFrom(source: any = {}) {
	        return new Change(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.binary = source["binary"];
	        this.large = source["large"];
	        this.secret = source["secret"];
	        this.added = source["added"];
	        this.removed = source["removed"];
	    }
	}
	export class FileDiff {
	    path: string;
	    status: string;
	    binary?: boolean;
	    large?: boolean;
	    secret?: boolean;
	    added: number;
	    removed: number;
	    diff: string;
	    too_large?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FileDiff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.binary = source["binary"];
	        this.large = source["large"];
	        this.secret = source["secret"];
	        this.added = source["added"];
	        this.removed = source["removed"];
	        this.diff = source["diff"];
	        this.too_large = source["too_large"];
	    }
	}
	export class Unkept {
	    path: string;
	    size: number;
	    secret?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Unkept(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.size = source["size"];
	        this.secret = source["secret"];
	    }
	}
	export class ProtectedChange {
	    path: string;
	    status: string;
	    binary?: boolean;
	    large?: boolean;
	    secret?: boolean;
	    added: number;
	    removed: number;
	    current: string;
	    restored: string;
	
	    static createFrom(source: any = {}) {
	        return new ProtectedChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.binary = source["binary"];
	        this.large = source["large"];
	        this.secret = source["secret"];
	        this.added = source["added"];
	        this.removed = source["removed"];
	        this.current = source["current"];
	        this.restored = source["restored"];
	    }
	}
	export class Plan {
	    restore: Change[];
	    conflicts: Change[];
	    unrestorable: string[];
	    protected: ProtectedChange[];
	    unkept: Unkept[];
	
	    static createFrom(source: any = {}) {
	        return new Plan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.restore = this.convertValues(source["restore"], Change);
	        this.conflicts = this.convertValues(source["conflicts"], Change);
	        this.unrestorable = source["unrestorable"];
	        this.protected = this.convertValues(source["protected"], ProtectedChange);
	        this.unkept = this.convertValues(source["unkept"], Unkept);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	

}

export namespace config {
	
	export class Choice {
	    value: string;
	    label: string;
	
	    static createFrom(source: any = {}) {
	        return new Choice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.value = source["value"];
	        this.label = source["label"];
	    }
	}
	export class KeyStorage {
	    kind: string;
	    where: string;
	    reason?: string;
	
	    static createFrom(source: any = {}) {
	        return new KeyStorage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.where = source["where"];
	        this.reason = source["reason"];
	    }
	}
	export class OptionKey {
	    name: string;
	    kind: string;
	    section: string;
	    group: string;
	    label: string;
	    description: string;
	    nullable: boolean;
	    null_label?: string;
	    number: bounds.Number;
	    choices?: Choice[];
	    placeholder?: string;
	    names?: string;
	    expands?: boolean;
	    app_only?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new OptionKey(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.section = source["section"];
	        this.group = source["group"];
	        this.label = source["label"];
	        this.description = source["description"];
	        this.nullable = source["nullable"];
	        this.null_label = source["null_label"];
	        this.number = this.convertValues(source["number"], bounds.Number);
	        this.choices = this.convertValues(source["choices"], Choice);
	        this.placeholder = source["placeholder"];
	        this.names = source["names"];
	        this.expands = source["expands"];
	        this.app_only = source["app_only"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace desktop {
	
	export class APIKeyStatus {
	    name: string;
	    providers: string[];
	    source: string;
	    stored: string;
	    problem?: string;
	
	    static createFrom(source: any = {}) {
	        return new APIKeyStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.providers = source["providers"];
	        this.source = source["source"];
	        this.stored = source["stored"];
	        this.problem = source["problem"];
	    }
	}
	export class APIKeys {
	    storage: config.KeyStorage;
	    keys: APIKeyStatus[];
	
	    static createFrom(source: any = {}) {
	        return new APIKeys(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.storage = this.convertValues(source["storage"], config.KeyStorage);
	        this.keys = this.convertValues(source["keys"], APIKeyStatus);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ApprovalModeState {
	    mode: string;
	    paused: boolean;
	    sandbox: boolean;
	    checkpoints: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ApprovalModeState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mode = source["mode"];
	        this.paused = source["paused"];
	        this.sandbox = source["sandbox"];
	        this.checkpoints = source["checkpoints"];
	    }
	}
	export class Attachment {
	    name: string;
	    path?: string;
	    dataUrl?: string;
	
	    static createFrom(source: any = {}) {
	        return new Attachment(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.path = source["path"];
	        this.dataUrl = source["dataUrl"];
	    }
	}
	export class AttachmentInfo {
	    path: string;
	    name: string;
	    preview: string;
	    problem: string;
	    relative: string;
	
	    static createFrom(source: any = {}) {
	        return new AttachmentInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.name = source["name"];
	        this.preview = source["preview"];
	        this.problem = source["problem"];
	        this.relative = source["relative"];
	    }
	}
	export class FieldError {
	    key: string;
	    path: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new FieldError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.path = source["path"];
	        this.message = source["message"];
	    }
	}
	export class FolderCheck {
	    path: string;
	    exists: boolean;
	    isDir: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FolderCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.exists = source["exists"];
	        this.isDir = source["isDir"];
	    }
	}
	export class ForkResult {
	    sessionId: string;
	    prompt: string;
	
	    static createFrom(source: any = {}) {
	        return new ForkResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.prompt = source["prompt"];
	    }
	}
	export class HookEntry {
	    event: string;
	    matcher: string;
	    group: number;
	    handler: number;
	    type: string;
	    command?: string;
	    url?: string;
	    timeout?: number;
	    disabled: boolean;
	    runs: hooks.Run[];
	
	    static createFrom(source: any = {}) {
	        return new HookEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event = source["event"];
	        this.matcher = source["matcher"];
	        this.group = source["group"];
	        this.handler = source["handler"];
	        this.type = source["type"];
	        this.command = source["command"];
	        this.url = source["url"];
	        this.timeout = source["timeout"];
	        this.disabled = source["disabled"];
	        this.runs = this.convertValues(source["runs"], hooks.Run);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HookFile {
	    source: string;
	    path: string;
	    exists: boolean;
	    trusted: boolean;
	    changed: boolean;
	    digest: string;
	    content: string;
	    hooks: HookEntry[];
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new HookFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.source = source["source"];
	        this.path = source["path"];
	        this.exists = source["exists"];
	        this.trusted = source["trusted"];
	        this.changed = source["changed"];
	        this.digest = source["digest"];
	        this.content = source["content"];
	        this.hooks = this.convertValues(source["hooks"], HookEntry);
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HooksInfo {
	    user: HookFile;
	    workspace: HookFile;
	    claude: boolean;
	    note?: string;
	
	    static createFrom(source: any = {}) {
	        return new HooksInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = this.convertValues(source["user"], HookFile);
	        this.workspace = this.convertValues(source["workspace"], HookFile);
	        this.claude = source["claude"];
	        this.note = source["note"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HubState {
	    url: string;
	    is_hub: boolean;
	    token_name: string;
	    token_page: string;
	    user: string;
	    has_token: boolean;
	    oauth: boolean;
	    problem: string;
	
	    static createFrom(source: any = {}) {
	        return new HubState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.is_hub = source["is_hub"];
	        this.token_name = source["token_name"];
	        this.token_page = source["token_page"];
	        this.user = source["user"];
	        this.has_token = source["has_token"];
	        this.oauth = source["oauth"];
	        this.problem = source["problem"];
	    }
	}
	export class InterruptedRevert {
	    label: string;
	    files: number;
	    time: string;
	
	    static createFrom(source: any = {}) {
	        return new InterruptedRevert(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.label = source["label"];
	        this.files = source["files"];
	        this.time = source["time"];
	    }
	}
	export class ReplayCell {
	    code: string;
	    changed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ReplayCell(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.changed = source["changed"];
	    }
	}
	export class KernelStatus {
	    state: string;
	    message: string;
	    problem?: string;
	    summary?: string;
	    fix?: string;
	    progress: number;
	    sessionId: string;
	    model: string;
	    sandboxed: boolean;
	    remoteHost?: string;
	    replayCells: number;
	    replayCode: ReplayCell[];
	    replayReason: string;
	    mcpFailures: mcpglue.MCPFailure[];
	    interrupted?: InterruptedRevert;
	    busyPid?: number;
	
	    static createFrom(source: any = {}) {
	        return new KernelStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.state = source["state"];
	        this.message = source["message"];
	        this.problem = source["problem"];
	        this.summary = source["summary"];
	        this.fix = source["fix"];
	        this.progress = source["progress"];
	        this.sessionId = source["sessionId"];
	        this.model = source["model"];
	        this.sandboxed = source["sandboxed"];
	        this.remoteHost = source["remoteHost"];
	        this.replayCells = source["replayCells"];
	        this.replayCode = this.convertValues(source["replayCode"], ReplayCell);
	        this.replayReason = source["replayReason"];
	        this.mcpFailures = this.convertValues(source["mcpFailures"], mcpglue.MCPFailure);
	        this.interrupted = this.convertValues(source["interrupted"], InterruptedRevert);
	        this.busyPid = source["busyPid"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LaunchTarget {
	    path: string;
	    sessionId: string;
	    fromCommandLine: boolean;
	
	    static createFrom(source: any = {}) {
	        return new LaunchTarget(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.sessionId = source["sessionId"];
	        this.fromCommandLine = source["fromCommandLine"];
	    }
	}
	export class LiveConversation {
	    sessionId: string;
	    workspace: string;
	    state: string;
	    waiting: number;
	    inView: boolean;
	
	    static createFrom(source: any = {}) {
	        return new LiveConversation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.workspace = source["workspace"];
	        this.state = source["state"];
	        this.waiting = source["waiting"];
	        this.inView = source["inView"];
	    }
	}
	export class LocalModels {
	    models: local.Model[];
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new LocalModels(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.models = this.convertValues(source["models"], local.Model);
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PathEntry {
	    path: string;
	    dir: boolean;
	    image: boolean;
	
	    static createFrom(source: any = {}) {
	        return new PathEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.dir = source["dir"];
	        this.image = source["image"];
	    }
	}
	export class PermissionRules {
	    always: permission.Rules;
	    session: permission.Rules;
	    imported?: permission.Rules;
	    imported_file?: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionRules(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.always = this.convertValues(source["always"], permission.Rules);
	        this.session = this.convertValues(source["session"], permission.Rules);
	        this.imported = this.convertValues(source["imported"], permission.Rules);
	        this.imported_file = source["imported_file"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class SandboxSettings {
	    enabled: boolean;
	    content: string;
	    custom: boolean;
	    path: string;
	    defaults: string;
	
	    static createFrom(source: any = {}) {
	        return new SandboxSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.content = source["content"];
	        this.custom = source["custom"];
	        this.path = source["path"];
	        this.defaults = source["defaults"];
	    }
	}
	export class SettingField {
	    key: string;
	    info: config.OptionKey;
	    value: string;
	    default: string;
	    want: string;
	    read_only: boolean;
	    restart: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SettingField(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.info = this.convertValues(source["info"], config.OptionKey);
	        this.value = source["value"];
	        this.default = source["default"];
	        this.want = source["want"];
	        this.read_only = source["read_only"];
	        this.restart = source["restart"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsSchema {
	    providers: model.Provider[];
	    model_settings: model.SettingKey[];
	    server_timeout: bounds.Number;
	
	    static createFrom(source: any = {}) {
	        return new SettingsSchema(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.providers = this.convertValues(source["providers"], model.Provider);
	        this.model_settings = this.convertValues(source["model_settings"], model.SettingKey);
	        this.server_timeout = this.convertValues(source["server_timeout"], bounds.Number);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsSource {
	    file: string;
	    format: string;
	    description: string;
	    notes: string[];
	
	    static createFrom(source: any = {}) {
	        return new SettingsSource(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.format = source["format"];
	        this.description = source["description"];
	        this.notes = source["notes"];
	    }
	}
	export class SkillInfo {
	    name: string;
	    description: string;
	
	    static createFrom(source: any = {}) {
	        return new SkillInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	    }
	}
	export class WorkspaceInfo {
	    path: string;
	    name: string;
	    created: boolean;
	    warnings: string[];
	    model: string;
	    kernel: KernelStatus;
	
	    static createFrom(source: any = {}) {
	        return new WorkspaceInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.name = source["name"];
	        this.created = source["created"];
	        this.warnings = source["warnings"];
	        this.model = source["model"];
	        this.kernel = this.convertValues(source["kernel"], KernelStatus);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class WorktreeEntry {
	    name: string;
	    branch: string;
	    baseBranch: string;
	    baseCommit: string;
	    path: string;
	    main: string;
	    missing: boolean;
	    open: boolean;
	
	    static createFrom(source: any = {}) {
	        return new WorktreeEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.branch = source["branch"];
	        this.baseBranch = source["baseBranch"];
	        this.baseCommit = source["baseCommit"];
	        this.path = source["path"];
	        this.main = source["main"];
	        this.missing = source["missing"];
	        this.open = source["open"];
	    }
	}
	export class WorktreeInfo {
	    name: string;
	    branch: string;
	    baseBranch: string;
	    baseCommit: string;
	    path: string;
	    main: string;
	
	    static createFrom(source: any = {}) {
	        return new WorktreeInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.branch = source["branch"];
	        this.baseBranch = source["baseBranch"];
	        this.baseCommit = source["baseCommit"];
	        this.path = source["path"];
	        this.main = source["main"];
	    }
	}
	export class WorktreeProblem {
	    kind: string;
	    message: string;
	    offer: string;
	    files: string[];
	    suggest: string;
	    worktree: string;
	
	    static createFrom(source: any = {}) {
	        return new WorktreeProblem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.message = source["message"];
	        this.offer = source["offer"];
	        this.files = source["files"];
	        this.suggest = source["suggest"];
	        this.worktree = source["worktree"];
	    }
	}
	export class WorktreeOutcome {
	    problem?: WorktreeProblem;
	    worktree?: WorktreeInfo;
	    workspace?: WorkspaceInfo;
	    review?: worktree.Review;
	    merged?: worktree.Merged;
	    removed?: worktree.Removed;
	    proposed?: string;
	
	    static createFrom(source: any = {}) {
	        return new WorktreeOutcome(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.problem = this.convertValues(source["problem"], WorktreeProblem);
	        this.worktree = this.convertValues(source["worktree"], WorktreeInfo);
	        this.workspace = this.convertValues(source["workspace"], WorkspaceInfo);
	        this.review = this.convertValues(source["review"], worktree.Review);
	        this.merged = this.convertValues(source["merged"], worktree.Merged);
	        this.removed = this.convertValues(source["removed"], worktree.Removed);
	        this.proposed = source["proposed"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace hooks {
	
	export class ClaudeFile {
	    path: string;
	    hooks: string;
	
	    static createFrom(source: any = {}) {
	        return new ClaudeFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.hooks = source["hooks"];
	    }
	}
	export class ClaudeImport {
	    files: ClaudeFile[];
	    digest: string;
	
	    static createFrom(source: any = {}) {
	        return new ClaudeImport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.files = this.convertValues(source["files"], ClaudeFile);
	        this.digest = source["digest"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Run {
	    event: string;
	    tool?: string;
	    source: string;
	    handler: string;
	    verdict: string;
	    failed?: string;
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new Run(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event = source["event"];
	        this.tool = source["tool"];
	        this.source = source["source"];
	        this.handler = source["handler"];
	        this.verdict = source["verdict"];
	        this.failed = source["failed"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace kernel {
	
	export class Column {
	    name: string;
	    dtype: string;
	
	    static createFrom(source: any = {}) {
	        return new Column(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.dtype = source["dtype"];
	    }
	}
	export class Variable {
	    name: string;
	    type: string;
	    shape?: number[];
	    len?: number;
	    bytes: number;
	    repr?: string;
	
	    static createFrom(source: any = {}) {
	        return new Variable(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.type = source["type"];
	        this.shape = source["shape"];
	        this.len = source["len"];
	        this.bytes = source["bytes"];
	        this.repr = source["repr"];
	    }
	}
	export class Namespace {
	    variables: Variable[];
	    total: number;
	    repr_cut: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Namespace(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.variables = this.convertValues(source["variables"], Variable);
	        this.total = source["total"];
	        this.repr_cut = source["repr_cut"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class VariableDetail {
	    name: string;
	    type: string;
	    shape?: number[];
	    len?: number;
	    bytes: number;
	    repr?: string;
	    dtype?: string;
	    columns?: Column[];
	    head?: string;
	
	    static createFrom(source: any = {}) {
	        return new VariableDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.type = source["type"];
	        this.shape = source["shape"];
	        this.len = source["len"];
	        this.bytes = source["bytes"];
	        this.repr = source["repr"];
	        this.dtype = source["dtype"];
	        this.columns = this.convertValues(source["columns"], Column);
	        this.head = source["head"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace local {
	
	export class Model {
	    name: string;
	    context_window?: number;
	
	    static createFrom(source: any = {}) {
	        return new Model(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.context_window = source["context_window"];
	    }
	}

}

export namespace mcpglue {
	
	export class LargeMention {
	    server: string;
	    uri: string;
	    size: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new LargeMention(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.uri = source["uri"];
	        this.size = source["size"];
	        this.limit = source["limit"];
	    }
	}
	export class MCPArgument {
	    name: string;
	    description: string;
	    required: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MCPArgument(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.required = source["required"];
	    }
	}
	export class MCPPrompt {
	    server: string;
	    name: string;
	    description: string;
	    arguments: MCPArgument[];
	
	    static createFrom(source: any = {}) {
	        return new MCPPrompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.arguments = this.convertValues(source["arguments"], MCPArgument);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MCPResource {
	    server: string;
	    uri: string;
	    name: string;
	    description: string;
	    mime_type: string;
	    arguments: MCPArgument[];
	
	    static createFrom(source: any = {}) {
	        return new MCPResource(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.uri = source["uri"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.mime_type = source["mime_type"];
	        this.arguments = this.convertValues(source["arguments"], MCPArgument);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MCPCatalog {
	    resources: MCPResource[];
	    prompts: MCPPrompt[];
	    errors: string[];
	
	    static createFrom(source: any = {}) {
	        return new MCPCatalog(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resources = this.convertValues(source["resources"], MCPResource);
	        this.prompts = this.convertValues(source["prompts"], MCPPrompt);
	        this.errors = source["errors"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MCPFailure {
	    group: string;
	    server: string;
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPFailure(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.group = source["group"];
	        this.server = source["server"];
	        this.error = source["error"];
	    }
	}
	
	
	export class MCPServerState {
	    name: string;
	    group: string;
	    url?: string;
	    connected: boolean;
	    failure?: string;
	    signIn: boolean;
	    signedIn: boolean;
	    // Go type: time
	    expiry: any;
	    refreshable: boolean;
	    signInError?: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPServerState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.group = source["group"];
	        this.url = source["url"];
	        this.connected = source["connected"];
	        this.failure = source["failure"];
	        this.signIn = source["signIn"];
	        this.signedIn = source["signedIn"];
	        this.expiry = this.convertValues(source["expiry"], null);
	        this.refreshable = source["refreshable"];
	        this.signInError = source["signInError"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace model {
	
	export class Provider {
	    id: string;
	    label: string;
	    family: string;
	    key_env: string;
	    key_required: boolean;
	    models: string[];
	    local: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Provider(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.label = source["label"];
	        this.family = source["family"];
	        this.key_env = source["key_env"];
	        this.key_required = source["key_required"];
	        this.models = source["models"];
	        this.local = source["local"];
	    }
	}
	export class SettingKey {
	    path: string;
	    kind: string;
	    label: string;
	    description: string;
	    number: bounds.Number;
	    choices?: string[];
	    families: string[];
	    models?: string;
	    not_models?: string;
	    want: string;
	    advanced?: boolean;
	    unset?: {[key: string]: string};
	
	    static createFrom(source: any = {}) {
	        return new SettingKey(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.kind = source["kind"];
	        this.label = source["label"];
	        this.description = source["description"];
	        this.number = this.convertValues(source["number"], bounds.Number);
	        this.choices = source["choices"];
	        this.families = source["families"];
	        this.models = source["models"];
	        this.not_models = source["not_models"];
	        this.want = source["want"];
	        this.advanced = source["advanced"];
	        this.unset = source["unset"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace permission {
	
	export class Rule {
	    type: string;
	    tool_name: string;
	    command?: string;
	    path?: string;
	
	    static createFrom(source: any = {}) {
	        return new Rule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.tool_name = source["tool_name"];
	        this.command = source["command"];
	        this.path = source["path"];
	    }
	}
	export class Preview {
	    rule: Rule;
	    problem?: string;
	    summary: string;
	    covers_call: boolean;
	    matches: string[];
	    misses: string[];
	
	    static createFrom(source: any = {}) {
	        return new Preview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rule = this.convertValues(source["rule"], Rule);
	        this.problem = source["problem"];
	        this.summary = source["summary"];
	        this.covers_call = source["covers_call"];
	        this.matches = source["matches"];
	        this.misses = source["misses"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Rules {
	    allow: Rule[];
	    ask: Rule[];
	    deny?: Rule[];
	
	    static createFrom(source: any = {}) {
	        return new Rules(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.allow = this.convertValues(source["allow"], Rule);
	        this.ask = this.convertValues(source["ask"], Rule);
	        this.deny = this.convertValues(source["deny"], Rule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace session {
	
	export class Info {
	    id: string;
	    created: string;
	    last_active: string;
	    title: string;
	    renamed: boolean;
	    messages: number;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.created = source["created"];
	        this.last_active = source["last_active"];
	        this.title = source["title"];
	        this.renamed = source["renamed"];
	        this.messages = source["messages"];
	    }
	}
	export class Match {
	    id: string;
	    snippet: string;
	
	    static createFrom(source: any = {}) {
	        return new Match(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.snippet = source["snippet"];
	    }
	}

}

export namespace worktree {
	
	export class Change {
	    path: string;
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new Change(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	    }
	}
	export class FileDiff {
	    path: string;
	    status: string;
	    patch: string;
	
	    static createFrom(source: any = {}) {
	        return new FileDiff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.patch = source["patch"];
	    }
	}
	export class Merged {
	    commit: string;
	    base_branch: string;
	    squash: boolean;
	    up_to_date?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Merged(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.commit = source["commit"];
	        this.base_branch = source["base_branch"];
	        this.squash = source["squash"];
	        this.up_to_date = source["up_to_date"];
	    }
	}
	export class Removed {
	    branch_kept: boolean;
	    branch: string;
	    committed?: boolean;
	    discarded?: string[];
	    pruned?: boolean;
	    sessions_kept?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Removed(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.branch_kept = source["branch_kept"];
	        this.branch = source["branch"];
	        this.committed = source["committed"];
	        this.discarded = source["discarded"];
	        this.pruned = source["pruned"];
	        this.sessions_kept = source["sessions_kept"];
	    }
	}
	export class Review {
	    name: string;
	    branch: string;
	    base_branch: string;
	    base_commit: string;
	    files: FileDiff[];
	    uncommitted?: Change[];
	
	    static createFrom(source: any = {}) {
	        return new Review(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.branch = source["branch"];
	        this.base_branch = source["base_branch"];
	        this.base_commit = source["base_commit"];
	        this.files = this.convertValues(source["files"], FileDiff);
	        this.uncommitted = this.convertValues(source["uncommitted"], Change);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

