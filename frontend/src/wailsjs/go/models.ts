export namespace app {
	
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
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new FieldError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
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
	    replayCells: number;
	    replayReason: string;
	
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
	        this.replayCells = source["replayCells"];
	        this.replayReason = source["replayReason"];
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
	    value: string;
	    default: string;
	    description: string;
	    read_only: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SettingField(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.value = source["value"];
	        this.default = source["default"];
	        this.description = source["description"];
	        this.read_only = source["read_only"];
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

}

export namespace checkpoint {
	
	export class Change {
	    path: string;
	    status: string;
	    binary?: boolean;
	    large?: boolean;
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
	        this.added = source["added"];
	        this.removed = source["removed"];
	    }
	}
	export class FileDiff {
	    path: string;
	    status: string;
	    binary?: boolean;
	    large?: boolean;
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
	        this.added = source["added"];
	        this.removed = source["removed"];
	        this.diff = source["diff"];
	        this.too_large = source["too_large"];
	    }
	}
	export class Plan {
	    restore: Change[];
	    conflicts: Change[];
	    unrestorable: string[];
	
	    static createFrom(source: any = {}) {
	        return new Plan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.restore = this.convertValues(source["restore"], Change);
	        this.conflicts = this.convertValues(source["conflicts"], Change);
	        this.unrestorable = source["unrestorable"];
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
	export class Rules {
	    allow: Rule[];
	    ask: Rule[];
	
	    static createFrom(source: any = {}) {
	        return new Rules(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.allow = this.convertValues(source["allow"], Rule);
	        this.ask = this.convertValues(source["ask"], Rule);
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
	        this.messages = source["messages"];
	    }
	}

}

